import Foundation
import Testing

/// The repository the tests run from, found through this file's path.
public enum Repository {
    /// The repository root: two levels up from `Tests/TestSupport/InteropCorpus.swift`.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of `relativePath` under the repository root.
    public static func path(_ relativePath: String) -> String {
        root.appendingPathComponent(relativePath).path
    }
}

/// The shared interop corpus, `../shared/interop` beside the repository: files
/// other people's tools wrote (its `MANIFEST.md` says which).
///
/// Tests that read it carry the `.interopCorpus` trait: they run when the
/// corpus is there, are skipped with `absentMessage` when it is not, and fail
/// with that message when it is not and `CI` is `true` in the environment (a
/// CI run that skipped them would pass without testing them).
public enum InteropCorpus {
    /// `../shared/interop`, beside the repository root.
    public static let root = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/interop", isDirectory: true)

    /// True when the corpus is there (a folder at `root`).
    public static var isPresent: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The one message for an absent corpus, as a skip's comment and as a CI failure.
    public static let absentMessage = "the interop corpus is not at \(root.path) (../shared/interop beside the repository)"

    /// A file or folder of the corpus, by its path under `../shared/interop`.
    public static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    /// The bytes of a file of the corpus, by its path under `../shared/interop`.
    public static func bytes(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    /// The paths under `../shared/interop/<folder>` of every regular file in it, sorted; none when it is absent.
    public static func files(under folder: String) -> [String] {
        let folderURL = url(folder)
        guard let walker = FileManager.default.enumerator(at: folderURL, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var paths: [String] = []
        for case let file as URL in walker where (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            paths.append(folder + "/" + file.path.dropFirst(folderURL.path.count + 1))
        }
        return paths.sorted()
    }

    /// What a test that needs the corpus does.
    public enum Decision: Equatable, Sendable {
        /// The corpus is there: the test runs.
        case run
        /// The corpus is absent outside CI: the test is skipped with `absentMessage`.
        case skip
        /// The corpus is absent and `CI` is `true`: the test fails with `absentMessage`.
        case fail
    }

    /// What a test that needs the corpus does, given whether the corpus is there and the environment.
    public static func decision(isPresent: Bool, environment: [String: String]) -> Decision {
        if isPresent { return .run }
        return environment["CI"]?.lowercased() == "true" ? .fail : .skip
    }

    /// The error a test that needs the absent corpus fails with on CI.
    public struct Absent: Error, CustomStringConvertible {
        public var description: String { InteropCorpus.absentMessage }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test or suite only when the interop corpus is there; without it
    /// skips it, or fails it when `CI` is `true` (see `InteropCorpus`).
    public static var interopCorpus: Self {
        interopCorpus(isPresent: { InteropCorpus.isPresent }, environment: ProcessInfo.processInfo.environment)
    }

    /// The `interopCorpus` condition for a corpus `isPresent` says is there or
    /// not, and `environment`: true to run, false to skip, or it throws
    /// `InteropCorpus.Absent` — Swift Testing records an issue for a
    /// condition that throws and does not run the test.
    public static func interopCorpus(isPresent: @escaping @Sendable () -> Bool, environment: [String: String]) -> Self {
        .enabled(Comment(rawValue: InteropCorpus.absentMessage)) {
            switch InteropCorpus.decision(isPresent: isPresent(), environment: environment) {
            case .run: return true
            case .skip: return false
            case .fail: throw InteropCorpus.Absent()
            }
        }
    }
}
