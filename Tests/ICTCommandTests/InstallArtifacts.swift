import Foundation

/// What `make static` builds for `make install` (and `make test` builds
/// first): the statically linked `ict`.
enum InstallArtifacts {
    static let staticBinary = ICTRunner.repositoryRoot.appendingPathComponent(".build-static/release/ict")

    /// In CI (`CI=true`) `make test` has built them, so their absence is a failure, not a skip.
    static var areRequired: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static var staticBinaryIsBuilt: Bool { FileManager.default.isExecutableFile(atPath: staticBinary.path) }

    static let notBuilt = "the static ict is not built (.build-static/release/ict): run make static, or make test"
}
