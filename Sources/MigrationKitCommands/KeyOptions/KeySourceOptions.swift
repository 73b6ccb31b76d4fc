import ArgumentParser

/// The list of key sources: one line each, in the order help lists them. Everything
/// that names key sources reads it (`KeySources.all`): the key options and the new-key
/// options (this group in their role), project settings and their variables, `config`,
/// `init`, and the sentences that list the sources.
///
/// A new source is a file that defines its `KeySourceDefinition` (see
/// `SystemdCredentialKeySource`), one line here, its test and a README line.
package struct KeySourceOptions<Role: KeyRole>: ParsableArguments {
    @OptionGroup var password: OneValueKeySource<PasswordKeySource, Role>
    @OptionGroup var passwordHex: OneValueKeySource<PasswordHexKeySource, Role>
    @OptionGroup var passwordFile: OneValueKeySource<PasswordFileKeySource, Role>
    @OptionGroup var passwordHexFile: OneValueKeySource<PasswordHexFileKeySource, Role>
    @OptionGroup var secretService: TwoValueKeySource<SecretServiceKeySource, Role>
    @OptionGroup var systemdCredential: OneValueKeySource<SystemdCredentialKeySource, Role>
    @OptionGroup var passwordCommand: OneValueKeySource<PasswordCommandKeySource, Role>

    package init() {}
}
