import MigrationKitCLI

MigrationCLI.main()
