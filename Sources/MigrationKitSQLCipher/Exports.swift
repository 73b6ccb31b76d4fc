// The file operations this module's API is made of (`Interruption`, the change locks,
// durable writes) live in MigrationKitFiles, shared with the GRDB connection and the
// commands; an app that imports this module gets them as before.
@_exported import MigrationKitFiles

// Cipher settings moved to the core with the table of cipher formats they belong to;
// an app that names them through this module alone (`SQLCipherConfiguration.cipher`)
// still finds them here.
@_exported import struct MigrationKit.CipherSettings
