from switchscope.cli import main

raise SystemExit(main())
