import Foundation
import Testing

/// Programs from the system that some tests run (Debian's `chromium`,
/// ImageMagick's `convert`), installed by `scripts/install-deps.sh test`.
///
/// A test that needs them carries the `.externalTools(_:)` trait: it runs
/// when every one is installed, is skipped saying which are missing when
/// not, and fails saying so when `CI` is `true` (CI installs them through
/// the same script, so a CI run that skipped the test would pass without
/// testing it) — the interop corpus's rule (`InteropCorpus.decision`).
public enum ExternalTool {
    /// The paths of `tools` that are not executable files.
    public static func missing(_ tools: [String]) -> [String] {
        tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The message for `missing` tools, as a skip's comment and as a CI failure.
    public static func absentMessage(_ missing: [String]) -> String {
        "\(missing.joined(separator: ", ")) missing: scripts/install-deps.sh test installs \(missing.count == 1 ? "it" : "them")"
    }

    /// The error a test that needs absent tools fails with on CI.
    public struct Absent: Error, CustomStringConvertible {
        public var description: String
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test or suite only when every program of `tools` (full
    /// paths) is installed; otherwise skips it, or fails it when `CI` is
    /// `true` (see `ExternalTool`).
    public static func externalTools(_ tools: [String]) -> Self {
        externalTools(tools, environment: ProcessInfo.processInfo.environment)
    }

    /// The `externalTools` condition with a given environment.
    public static func externalTools(_ tools: [String], environment: [String: String]) -> Self {
        .enabled(Comment(rawValue: "needs \(tools.joined(separator: ", "))")) {
            let missing = ExternalTool.missing(tools)
            switch InteropCorpus.decision(isPresent: missing.isEmpty, environment: environment) {
            case .run: return true
            case .skip: return false
            case .fail: throw ExternalTool.Absent(description: ExternalTool.absentMessage(missing))
            }
        }
    }
}
