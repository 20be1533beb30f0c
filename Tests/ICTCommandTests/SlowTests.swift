import Foundation
import Testing

extension Tag {
    /// Tests that take tens of seconds: sweeps over whole corpora and the
    /// largest inputs. `make test` leaves them out so it stays under two
    /// minutes; `make test-all` and CI (`.ci/run`) run them.
    @Tag static var slow: Self
}

/// Whether this run includes the tests tagged slow: `ICT_SLOW_TESTS=1`,
/// which `make test-all` sets.
enum SlowTests {
    static let enabled = ProcessInfo.processInfo.environment["ICT_SLOW_TESTS"] == "1"
    static let skipped = Comment(rawValue: "tagged slow: make test-all (ICT_SLOW_TESTS=1) runs it")
}
