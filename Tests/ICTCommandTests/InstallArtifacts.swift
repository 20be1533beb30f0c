import Foundation

/// What `make static` and `make manual` build for `make install` (and `make
/// test` builds first): the statically linked `ict` and the man pages.
enum InstallArtifacts {
    static let staticBinary = ICTRunner.repositoryRoot.appendingPathComponent(".build-static/release/ict")
    static let manPages = ICTRunner.repositoryRoot.appendingPathComponent(".build-static/man")

    /// In CI (`CI=true`) `make test` has built them, so their absence is a failure, not a skip.
    static var areRequired: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static var staticBinaryIsBuilt: Bool { FileManager.default.isExecutableFile(atPath: staticBinary.path) }

    static var manPagesAreBuilt: Bool {
        FileManager.default.fileExists(atPath: manPages.appendingPathComponent("ict.1").path)
    }

    static let staticBinaryNotBuilt = "the static ict is not built (.build-static/release/ict): run make static, or make test"
    static let notBuilt = "the static ict or its man pages are not built (.build-static/): run make static manual, or make test"
}
