"""Files on disk: how cfngen reads what it is given and writes what it makes, so that a
failed, interrupted or killed command leaves every file as it was.

Writing (every command that writes more than one file uses a Transaction):
    Transaction(root)                   .write(rel, data) / .create(rel, data) / .delete(rel),
                                        then .commit(): all or nothing, journaled (see
                                        _transaction); CfngenError says what failed
    recover(root) -> list[str]          undo or finish what a killed command left in root;
                                        a journal cfngen did not write: CfngenError, exit 2
    GITIGNORE_LINES                     the .gitignore lines for the journal and staged files
    write_atomic(path, content)         one file: a temporary sibling renamed over it (the one
                                        atomic write outside a Transaction and the caches)
    sha256(data)                        the one digest of bytes cfngen records or compares
    new_file_mode(), umask()            0o666 less the umask, for files cfngen creates
    Workspace(parent, purpose), sweep() a private build folder that a dead process's
                                        successor removes
    scratch_folder(prefix)              a temporary folder removed when this process exits
    canonical(rel), inside(root, rel)   one spelling of a relative path; whether it stays in root
    writable(root, rel, what=...)       root/rel, or a CfngenError if it leads outside root
                                        (`..`, absolute, through a link): what cfngen writes,
                                        renames or deletes stays inside the project
    readable(path, repo, what=...)      path with links followed, or a CfngenError if outside
    repository_root(project)            repo: what cfngen reads to run or pack code stays
                                        inside the git work tree (else the project)
    within(base, path)                  whether path is base or below it, links followed
    signals_deferred()                  hold Ctrl-C/SIGTERM/SIGHUP over a few steps that belong
                                        together (e.g. making a Workspace and noting it)
    commit_then_report(commit, root, files)
                                        run a commit, then raise an interrupt that arrived
                                        meanwhile only if the files are not all in place
    raised_while_interrupted(exc)       whether exc is a cleanup failing under an interrupt

cfngen's home and its caches (see _home and _cache):
    home()                              $CFNGEN_HOME, else ~/.cfngen
    Cache(name, keep=, what=)           <home>/cache/<name>/: .get(key) / .put(key, bytes),
                                        .get_folder(key) / .new_folder() / .put_folder(key,
                                        folder); every entry verified on each read, a bad one
                                        removed and noted; a home that cannot be used bypassed
    note(text), take_notes()            what the command should say once when it ends
    ENV_HOME, ENV_NO_CACHE              CFNGEN_HOME, CFNGEN_NO_CACHE

Which files are cfngen's (generate, init, upgrade, test and build ask the same; engines pass
their kind's `may_derive`, this layer knows no kind):
    _ownership                          the manifest (.cfngen/generated.json), cfngen's header,
                                        what the official tool wrote
    _conflicts, _conflicted             git's conflict markers; conflicted_files(root,
                                        may_derive), refuse_conflicts(...) -> ConflictsError

Reading (regular files only; a named pipe, folder, loop or dangling link is a CfngenError
that names the file, never a hang or a traceback):
    read_bytes(path), read_optional(path), inspect(path) -> Entry, reason(OSError) -> str
"""

from __future__ import annotations

from cfngen._files._atomic import new_file_mode, umask, write_atomic
from cfngen._files._cache import Cache
from cfngen._files._contain import canonical, readable, repository_root, within, writable
from cfngen._files._digest import sha256
from cfngen._files._home import ENV_HOME, ENV_NO_CACHE, caches_off, home, note, take_notes
from cfngen._files._journal import GITIGNORE_LINES, JOURNAL, recover
from cfngen._files._read import Entry, inspect, read_bytes, read_optional, reason
from cfngen._files._scratch import scratch_folder
from cfngen._files._signals import commit_then_report, raised_while_interrupted, signals_deferred
from cfngen._files._transaction import Transaction, inside
from cfngen._files._workspace import Workspace, sweep

__all__ = [
    "ENV_HOME",
    "ENV_NO_CACHE",
    "GITIGNORE_LINES",
    "JOURNAL",
    "Cache",
    "Entry",
    "Transaction",
    "Workspace",
    "caches_off",
    "canonical",
    "commit_then_report",
    "home",
    "inside",
    "inspect",
    "new_file_mode",
    "note",
    "raised_while_interrupted",
    "read_bytes",
    "read_optional",
    "readable",
    "reason",
    "recover",
    "repository_root",
    "scratch_folder",
    "sha256",
    "signals_deferred",
    "sweep",
    "take_notes",
    "umask",
    "within",
    "writable",
    "write_atomic",
]
