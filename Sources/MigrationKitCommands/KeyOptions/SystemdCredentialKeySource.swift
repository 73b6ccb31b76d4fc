import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import MigrationKitKeys

/// `--systemd-credential NAME` (`systemd-credential`, `MIGRATIONKIT_SYSTEMD_CREDENTIAL`):
/// a systemd service credential. A unit's `LoadCredential=NAME:PATH` or
/// `LoadCredentialEncrypted=NAME:PATH` (a file `systemd-creds encrypt` sealed, perhaps to
/// the machine's TPM) makes the key the file `$CREDENTIALS_DIRECTORY/NAME`, readable by
/// the service alone; it is read as a key file (`KeyFile`: permissions, size, a trailing
/// line break dropped).
///
/// NAME is a file name in that folder: no `/`, not `.` or `..`. `{name}` stands for
/// each database's name, as in `--password-file`, so a fleet's unit can load one
/// credential per database (`--systemd-credential 'tenant-{name}.key'`).
enum SystemdCredentialKeySource: KeySourceDefinition {
    /// Set by systemd for a service with credentials; empty counts as not set.
    static let directoryVariable = "CREDENTIALS_DIRECTORY"

    package static let descriptor = KeySourceDescriptor(
        parameters: [.init(
            name: "systemd-credential", valueName: "name",
            help: { "Read \($0.theKey) from the systemd credential NAME: the file $\(directoryVariable)/NAME that the unit's LoadCredential= or LoadCredentialEncrypted= provides." },
            setting: .text, example: "db.key")],
        description: "a systemd credential", note: "a unit's LoadCredential= or LoadCredentialEncrypted=",
        takesName: true,
        source: { values, environment in .file(path: try path(of: values[0], in: environment)) },
        shown: { values, environment in "systemd credential \(values[0])" + (directory(in: environment).map { " in \($0)" } ?? " (\(directoryVariable) is not set here)") },
        keyFile: { values, environment in try? path(of: values[0], in: environment) },
        check: { values, role in
            if !isValidName(values[0]) {
                throw ValidationError("\(role.flag("systemd-credential")) \(values[0]) is not a credential name; give the NAME of the unit's LoadCredential=NAME:… line, a file name without / that is not . or ..")
            }
        })

    /// `$CREDENTIALS_DIRECTORY` in the running command's `environment`, when set and not empty.
    package static func directory(in environment: ProcessEnvironment) -> String? {
        guard let value = environment.string(directoryVariable), !value.isEmpty else { return nil }
        return value
    }

    /// A file name in the credentials folder, as systemd's own credential names are.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".." && !name.utf8.contains(0) && name.utf8.count <= 255
    }

    /// The credential's file in the running command's `environment`, or a sentence saying
    /// why there is none and what to do.
    package static func path(of name: String, in environment: ProcessEnvironment) throws -> String {
        guard isValidName(name) else {
            throw KeyError(code: .credentialNameInvalid,
                           message: "\(name) is not a systemd credential name (a file name in $\(directoryVariable), without / and not . or ..); give the NAME of the unit's LoadCredential=NAME:… line.")
        }
        guard let directory = directory(in: environment) else {
            throw KeyError(code: .credentialsDirectoryUnset,
                           message: "The systemd credential \(name) cannot be read because \(directoryVariable) is not set, as it is only inside a systemd service that loads credentials; run the command from a unit with LoadCredential=\(name):/path/to/key (or LoadCredentialEncrypted=), or pass the key another way.")
        }
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
        // The name itself (lstat), not what a link there leads to.
        var status = stat()
        if lstat(path, &status) != 0 && (errno == ENOENT || errno == ENOTDIR) {
            throw KeyError(code: .credentialNotFound,
                           message: "The systemd credential \(name) is not in \(directory) (\(directoryVariable)); load it in the unit with LoadCredential=\(name):/path/to/key or LoadCredentialEncrypted=\(name):/path/to/key.cred, or check the name.",
                           path: path)
        }
        return path
    }
}

extension KeyError.Code {
    /// `CREDENTIALS_DIRECTORY` is not set: not inside a service that loads credentials.
    static let credentialsDirectoryUnset = KeyError.Code(rawValue: "credentialsDirectoryUnset")
    /// No file of that name in `$CREDENTIALS_DIRECTORY`.
    static let credentialNotFound = KeyError.Code(rawValue: "credentialNotFound")
    /// The name has a `/`, or is `.` or `..`.
    static let credentialNameInvalid = KeyError.Code(rawValue: "credentialNameInvalid")
}
