from baton.cli import main

raise SystemExit(main())
