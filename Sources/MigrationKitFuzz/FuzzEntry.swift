// Entry points of the MigrationKitFuzz target, built two ways:
//
// - by scripts/fuzz.sh with `-sanitize=fuzzer -DMIGRATIONKIT_LIBFUZZER`: the entry
//   point hands over to libFuzzer's driver, which calls `LLVMFuzzerTestOneInput`;
// - by a plain `swift build`: a replay tool that runs the files (or folders of
//   files) named on the command line through the same harness, so a crashing input
//   can be debugged without the fuzzer.
//
// (No main.swift: top-level code would be refused even in an inactive `#if` branch
// once the file is parsed as a library, which the fuzzer build needs.)

#if MIGRATIONKIT_LIBFUZZER

/// libFuzzer's driver (`int LLVMFuzzerRunDriver(int *, char ***, int (*)(const
/// uint8_t *, size_t))`), linked in by `-sanitize=fuzzer`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// The executable's entry point. SwiftPM links an executable target's `main` to
/// `<target>_main` (so tests can import executables), which would shadow
/// libFuzzer's own `main`; this one starts libFuzzer's driver instead.
@_cdecl("MigrationKitFuzz_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzOneInput)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else {
        FuzzHarness.run([])
        return 0
    }
    FuzzHarness.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#else

import Foundation

@main
enum ReplayTool {
    static func main() {
        var replayed = 0
        for argument in CommandLine.arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("No such file or folder: \(argument)\n".utf8))
                exit(2)
            }
            let paths = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []).sorted().map { argument + "/" + $0 }
                : [argument]
            for path in paths {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                FuzzHarness.run([UInt8](data))
                replayed += 1
            }
        }
        print("Replayed \(replayed) input\(replayed == 1 ? "" : "s") without a crash.")
    }
}

#endif
