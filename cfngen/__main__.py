import sys

from cfngen._cli import main

sys.exit(main())
