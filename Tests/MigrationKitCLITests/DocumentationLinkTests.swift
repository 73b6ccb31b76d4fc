import Foundation
import Testing

/// Every relative link and `#anchor` in the project's Markdown resolves: a reader who
/// follows one lands on a file or heading that exists. And the README stays short.
@Suite struct DocumentationLinkTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Markdown files a reader meets (not build output or generated benchmark tables).
    private static func markdownFiles() throws -> [String] {
        let skipped = [".build", "Benchmarks/results", "Integrations/GRDB/.build"]
        let all = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
        return all.filter { path in
            path.hasSuffix(".md") && !path.split(separator: "/").contains(where: { $0.hasPrefix(".build") })
                && !skipped.contains(where: { path.hasPrefix($0) })
        }.sorted()
    }

    /// The text outside fenced code blocks, where links and headings are Markdown.
    private static func prose(_ text: String) -> [Substring] {
        var inFence = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.hasPrefix("```") { inFence.toggle(); return false }
            return !inFence
        }
    }

    /// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_`
    /// dropped, spaces as hyphens.
    static func anchor(of heading: Substring) -> String {
        String(heading.lowercased().unicodeScalars.compactMap { scalar -> Character? in
            if scalar == " " { return "-" }
            if CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" { return Character(scalar) }
            return nil
        })
    }

    private static func anchors(in path: String) throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        return Set(prose(text).compactMap { line in
            guard line.hasPrefix("#"), let space = line.firstIndex(of: " ") else { return nil }
            return anchor(of: line[line.index(after: space)...])
        })
    }

    /// The README is the front door: at most 300 lines, with the two commands of the
    /// contract with a new user on its first screen; the rest lives in docs/.
    @Test func theReadmeIsAFrontDoor() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count <= 300, "README.md has \(lines.count) lines; move detail to docs/")
        let firstScreen = lines.prefix(40).joined(separator: "\n")
        #expect(firstScreen.contains("make demo") && firstScreen.contains("make test"))
    }

    @Test func theAnchorOfAHeadingIsGitHubs() {
        #expect(Self.anchor(of: "GRDB apps: `MigrationKitGRDB`") == "grdb-apps-migrationkitgrdb")
        #expect(Self.anchor(of: "Platforms: SQLCipher 4 and 3") == "platforms-sqlcipher-4-and-3")
    }

    @Test func everyRelativeLinkAndAnchorResolves() throws {
        let files = try Self.markdownFiles()
        #expect(["README.md", "Keys/README.md", "CONTRIBUTING.md", "docs/README.md", "docs/json-output.md"].allSatisfy(files.contains), "\(files)")
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        var checked = 0
        for file in files {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for line in Self.prose(text) {
                for match in line.matches(of: link) {
                    let target = String(line[match.range].dropFirst(2).dropLast())
                    if target.contains(":") { continue }  // https:, mailto:
                    let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                    let folder = (file as NSString).deletingLastPathComponent
                    let linked = parts[0].isEmpty ? file
                        : ((folder as NSString).appendingPathComponent(String(parts[0])) as NSString).standardizingPath
                    #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(linked).path),
                            "\(file): the link \(target) leads to no file")
                    if parts.count == 2, linked.hasSuffix(".md") {
                        #expect(try Self.anchors(in: linked).contains(String(parts[1])), "\(file): the link \(target) leads to no heading")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 20, "too few links found: \(checked)")
    }
}
