"""Run by the Python of the guard rail's virtualenv (AWS's resource-schema-guard-rail needs
CPython 3.10 or older): judge each pair of schemas on stdin ({name: [old, new]}) with the guard
rail's stateful rules and write {name: [check ids]} (or the error it raised) as JSON to the file
argv[1] (the guard rail prints its diff to stdout)."""

import json
import sys

from rpdk.guard_rail.core.data_types import Stateful
from rpdk.guard_rail.core.runner import exec_compliance


def main():
    verdicts = {}
    for name, (old, new) in json.load(sys.stdin).items():
        try:
            results = exec_compliance(Stateful(previous_schema=old, current_schema=new, rules=[]))
        except NotImplementedError as exc:  # combiners: "not yet supported"
            verdicts[name] = str(exc)
            continue
        ids = set()
        for result in results:
            for group in (result.non_compliant, result.warning):
                for findings in group.values():
                    ids.update(finding.check_id for finding in findings)
        verdicts[name] = sorted(ids)
    with open(sys.argv[1], "w") as out:
        json.dump(verdicts, out)


if __name__ == "__main__":
    main()
