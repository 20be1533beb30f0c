#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress line on standard error for a long loop, such as
/// `validate: 1234/10000 files`, redrawn in place with `\r`.
///
/// Nothing is drawn unless standard error is a terminal, nor before the run
/// has taken more than a second; after that the line is redrawn at most ten
/// times a second. `clear()` erases it, before other text is printed on
/// standard error and at the end. When standard error is not a terminal,
/// `advance()` costs one comparison.
struct ProgressReporter {
    /// How long a run goes silent before the line first appears.
    static let quietPeriod = Duration.seconds(1)
    /// The shortest time between two redraws.
    static let redrawInterval = Duration.milliseconds(100)

    private let label: String
    private let total: Int
    private let unit: String
    private let isShown: Bool
    private let start = ContinuousClock.now
    private var done = 0
    private var lastDrawn: ContinuousClock.Instant?
    private var isDrawn = false

    /// A reporter for `total` steps, drawn as `label: done/total unit`.
    init(_ label: String, total: Int, unit: String) {
        self.label = label
        self.total = total
        self.unit = unit
        isShown = isatty(STDERR_FILENO) == 1
    }

    /// Counts one step done, and redraws the line when it is time to.
    mutating func advance() {
        done += 1
        guard isShown else { return }
        let now = ContinuousClock.now
        if let lastDrawn {
            guard now - lastDrawn >= Self.redrawInterval else { return }
        } else {
            guard now - start > Self.quietPeriod else { return }
        }
        lastDrawn = now
        isDrawn = true
        Diagnostics.writeAll(Array("\r\(label): \(done)/\(total) \(unit)\u{1B}[K".utf8), to: STDERR_FILENO)
    }

    /// Erases the line if it is drawn; the next redraw due draws it again.
    mutating func clear() {
        guard isDrawn else { return }
        Diagnostics.writeAll(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO)
        isDrawn = false
    }
}
