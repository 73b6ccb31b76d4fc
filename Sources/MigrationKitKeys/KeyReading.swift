/// How one running command reads and stores keys, handed down from where its command
/// line starts to every key source, key command and Secret Service call it makes: the
/// environment and standard input its key sources read (and its key commands get), the
/// key commands' time bound and what stops them, where their standard error goes, and
/// the Secret Service batch its stores share. Made once per run, so a keyring that did
/// not answer one database of the run is not waited for by the next, and the next run
/// asks it again.
package struct KeyReading: Sendable {
    /// The environment `MIGRATIONKIT_PASSWORD` and a key command's `PATH` are read from,
    /// and a key command is started with.
    package var environment: ProcessEnvironment
    /// The standard input a key is read or prompted from, and a key command reads.
    package var standardInput: StandardInput
    /// How long a key command may run (the command line's key command timeout setting).
    var keyCommandTimeout: Duration
    /// The signal that asked the running command line to stop (its graceful stop), or nil:
    /// a key command still running then is killed with its process group at once,
    /// instead of when its time bound ends. Nil: nothing asks.
    var stopRequest: KeyCommandLine.StopRequest?
    /// Where a command run inside a process that is not its own passes a key command's
    /// standard error on to (a test's captured output); nil: the process's standard
    /// error, and the terminal is the key command's for its prompts.
    var standardErrorRelay: KeyCommandLine.StandardErrorRelay?
    /// The batch the run's Secret Service stores join instead of waiting
    /// `SecretServiceKeyStore.defaultTimeout` on their own; nil: each store waits on its own.
    var secretServiceBatch: SecretServiceKeyStore.Batch?

    package init(environment: ProcessEnvironment = .process, standardInput: StandardInput = .process,
                 keyCommandTimeout: Duration = KeyCommandLine.defaultTimeout, stopRequest: KeyCommandLine.StopRequest? = nil,
                 standardErrorRelay: KeyCommandLine.StandardErrorRelay? = nil, secretServiceBatch: SecretServiceKeyStore.Batch? = nil) {
        self.environment = environment
        self.standardInput = standardInput
        self.keyCommandTimeout = keyCommandTimeout
        self.stopRequest = stopRequest
        self.standardErrorRelay = standardErrorRelay
        self.secretServiceBatch = secretServiceBatch
    }

    /// What an app's own calls get (`KeySource.resolve()`): the process's environment and
    /// standard input, the default time bound, no stop, the process's standard error, and
    /// a Secret Service store on its own.
    package static let processDefaults = KeyReading()

    /// The Secret Service store of this run: one of its batch, or one on its own.
    package var secretServiceStore: SecretServiceKeyStore {
        secretServiceBatch.map(SecretServiceKeyStore.init(batch:)) ?? SecretServiceKeyStore()
    }
}
