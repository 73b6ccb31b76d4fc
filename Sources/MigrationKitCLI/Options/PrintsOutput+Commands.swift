import MigrationKitCommands

/// Every command prints through the output options.
extension MigrateCommand: PrintsOutput {}
extension StatusCommand: PrintsOutput {}
extension RollbackCommand: PrintsOutput {}
extension VerifyCommand: PrintsOutput {}
extension SchemaDumpCommand: PrintsOutput {}
extension NewCommand: PrintsOutput {}
extension InitCommand: PrintsOutput {}
extension ConfigCommand: PrintsOutput {}
extension EncryptCommand: PrintsOutput {}
extension DecryptCommand: PrintsOutput {}
extension RekeyCommand: PrintsOutput {}
extension CipherUpgradeCommand: PrintsOutput {}
extension RestoreCommand: PrintsOutput {}
extension BaselineCommand: PrintsOutput {}
extension LintCommand: PrintsOutput {}
extension CheckCommand: PrintsOutput {}
extension GenerateKeyCommand: PrintsOutput {}
extension StoreKeyCommand: PrintsOutput {}
extension DeleteKeyCommand: PrintsOutput {}
