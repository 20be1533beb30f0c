import Foundation
import TestSupport

/// What `make static` and `make manual` build for `make install` (and `make
/// check-install` builds before it runs the install tests): the statically
/// linked `ict` and the man pages.
enum InstallArtifacts {
    static let staticBinary = Repository.root.appendingPathComponent(".build-static/release/ict")
    static let manPages = Repository.root.appendingPathComponent(".build-static/man")

    /// Under `make check-install` (`ICT_INSTALL_TESTS=1`, which CI runs) they have been built, so their
    /// absence is a failure, not a skip; `make test` leaves the install checks to it, whatever
    /// `.build-static` holds (an old static build would be checked otherwise, not the code under test).
    static var areRequired: Bool { ProcessInfo.processInfo.environment["ICT_INSTALL_TESTS"] == "1" }

    static var staticBinaryIsBuilt: Bool { FileManager.default.isExecutableFile(atPath: staticBinary.path) }

    static var manPagesAreBuilt: Bool {
        FileManager.default.fileExists(atPath: manPages.appendingPathComponent("ict.1").path)
    }

    static let staticBinaryNotBuilt = "the static ict is not built (.build-static/release/ict): run make static, or make check-install"
    static let runByCheckInstall = "the install checks run under make check-install (ICT_INSTALL_TESTS=1)"
    static let notBuilt = "the static ict or its man pages are not built (.build-static/): run make static manual, or make check-install"
}
