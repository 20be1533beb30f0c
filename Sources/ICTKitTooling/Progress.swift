import SystemSupport

/// A progress line on standard error for a long loop, such as
/// `validate: 1234/10000 files`, redrawn in place with `\r`.
///
/// Nothing is drawn unless standard error is a terminal, nor before the run
/// has taken more than a second; after that the count shown changes at most
/// ten times a second. `clear()` erases the line before other text is printed
/// on standard error or standard output, and at the end; the next `advance()`
/// puts it back as it was, so it stays under output printed as the loop goes.
/// When standard error is not a terminal, `advance()` costs one comparison.
package struct ProgressReporter {
    /// How long a run goes silent before the line first appears: a second, or
    /// `ICT_PROGRESS_QUIET_MS` milliseconds (tests set it, so that whether the
    /// line appears does not depend on how fast the machine is).
    package static let quietPeriod: Duration = {
        guard let text = Environment.value("ICT_PROGRESS_QUIET_MS"), let milliseconds = Int64(text),
            milliseconds >= 0
        else { return .seconds(1) }
        return .milliseconds(milliseconds)
    }()
    /// The shortest time between two changes of the count shown.
    package static let updateInterval = Duration.milliseconds(100)

    private let label: String
    /// Nil when the steps come from a stream (`--files-from`): `label: done
    /// unit`; may be set once it is known (a zip's entry count, say).
    package var total: Int?
    private let unit: String
    private let isShown: Bool
    private let start = ContinuousClock.now
    private var done = 0
    /// When the count shown last changed; nil until the line first appears.
    private var lastUpdate: ContinuousClock.Instant?
    /// The line as last drawn, to put back after `clear()`.
    private var line = ""
    private var isDrawn = false

    /// A reporter for `total` steps, drawn as `label: done/total unit`, or
    /// when the total is not known, `label: done unit`.
    package init(_ label: String, total: Int?, unit: String) {
        self.label = label
        self.total = total
        self.unit = unit
        isShown = Terminal.isTerminal(StandardDescriptor.error)
    }

    /// Counts one step done; draws the line with the new count when an update
    /// is due, or as it was when `clear()` has erased it since.
    package mutating func advance() {
        done += 1
        guard isShown else { return }
        let now = ContinuousClock.now
        if lastUpdate.map({ now - $0 >= Self.updateInterval }) ?? (now - start >= Self.quietPeriod) {
            lastUpdate = now
            line = "\r\(label): \(done)\(total.map { "/\($0)" } ?? "") \(unit)\u{1B}[K"
        } else if isDrawn || line.isEmpty {
            return
        }
        Diagnostics.writeAll(Array(line.utf8), to: StandardDescriptor.error)
        isDrawn = true
    }

    /// Erases the line if it is drawn.
    package mutating func clear() {
        guard isDrawn else { return }
        Diagnostics.writeAll(Array("\r\u{1B}[K".utf8), to: StandardDescriptor.error)
        isDrawn = false
    }
}
