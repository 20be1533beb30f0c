import Foundation

/// What a row must reach to pass.
enum Target {
    /// ICTKit at least this many times faster than the peer: peer ÷ ours ≥ factor.
    case faster(by: Double)
    /// ICTKit at most this many times the peer's time: ours ÷ peer ≤ factor.
    case atMostSlower(by: Double)
    /// Extra peak memory at most this many times the file's size: ours ÷ size ≤ factor.
    case memoryAtMost(timesFileSize: Double)
    /// Ours at most this share of the peer's measurement (bytes or time): ours ÷ peer ≤ percent %.
    case shareAtMost(percent: Double)
    /// ICTKit's wall time at most this many milliseconds, whatever the peer's (shown for scale).
    case atMost(milliseconds: Double)
    /// ICTKit's peak memory at most this many megabytes, whatever the peer's (shown for scale).
    case memoryAtMostMegabytes(Double)
    /// Ours at most this many times the peer's peak memory: ours ÷ peer ≤ factor.
    case memoryAtMostTimesPeer(Double)
    /// A count of ICTKit's (wake-ups per second, threads) at most this, whatever the peer's (shown for scale).
    case countAtMost(Double, unit: String)

    var description: String {
        switch self {
        case .faster(let factor): "≥ \(format(factor, decimals: 0))× faster"
        case .atMostSlower(let factor): "≤ \(format(factor, decimals: factor == factor.rounded() ? 0 : 1))× peer's time"
        case .memoryAtMost(let factor): "≤ \(format(factor, decimals: 0))× file size"
        case .shareAtMost(let percent): "≤ \(format(percent, decimals: 0)) % of peer"
        case .atMost(let budget): "≤ \(milliseconds(budget))"
        case .memoryAtMostMegabytes(let budget): "≤ \(format(budget, decimals: 0)) MB"
        case .memoryAtMostTimesPeer(let factor): "≤ \(format(factor))× peer's memory"
        case .countAtMost(let limit, let unit): "≤ \(format(limit, decimals: limit == limit.rounded() ? 0 : 1)) \(unit)"
        }
    }
}

/// One line of the table.
struct Row {
    var benchmark: String
    var ours: String
    var peer: String
    var peerMeasurement: String
    var ratio: String
    var target: Target
    /// nil when the row could not be measured; it then counts as not met.
    var met: Bool?
    var note: String?
    /// The ratio of the CPU-time medians, where both sides were timed.
    var cpuRatio: String?

    /// A row comparing two wall times.
    static func timed(_ benchmark: String, ours: Timing, peer: String, peerTime: Timing, target: Target) -> Row {
        let ourTime = ours.median.milliseconds, theirTime = peerTime.median.milliseconds
        let ratio: String
        let met: Bool
        switch target {
        case .faster(let factor):
            ratio = "\(format(theirTime / ourTime))× faster"
            met = theirTime / ourTime >= factor
        case .atMostSlower(let factor):
            ratio = "\(format(ourTime / theirTime))× peer's time"
            met = ourTime / theirTime <= factor
        case .atMost(let budget):
            ratio = "\(format(ourTime / theirTime))× peer's time"
            met = ourTime <= budget
        case .memoryAtMost, .shareAtMost, .memoryAtMostMegabytes, .memoryAtMostTimesPeer, .countAtMost:
            preconditionFailure("a timed row has a time target")
        }
        let cpuRatio =
            switch target {
            case .faster: peerTime.medianCPU.milliseconds / ours.medianCPU.milliseconds
            default: ours.medianCPU.milliseconds / peerTime.medianCPU.milliseconds
            }
        let cpuRatioText =
            format(cpuRatio) + "×: " + milliseconds(ours.medianCPU.milliseconds)
            + " vs " + milliseconds(peerTime.medianCPU.milliseconds)
        return Row(
            benchmark: benchmark, ours: milliseconds(ourTime) + ours.fewerRunsThanAsked, peer: peer,
            peerMeasurement: milliseconds(theirTime) + peerTime.fewerRunsThanAsked, ratio: ratio, target: target, met: met,
            cpuRatio: cpuRatioText)
    }

    /// A row comparing a measurement with the same kind of measurement of
    /// the peer, as a share: `share` is ours ÷ peer.
    static func share(
        _ benchmark: String, ours: String, peer: String, peerMeasurement: String, share: Double,
        target: Target
    ) -> Row {
        guard case .shareAtMost(let percent) = target else { preconditionFailure("a share row has a share target") }
        return Row(
            benchmark: benchmark, ours: ours, peer: peer, peerMeasurement: peerMeasurement,
            ratio: "\(format(share * 100, decimals: 2)) %", target: target, met: share * 100 <= percent)
    }

    /// A row comparing two peak memory sizes, against a budget in megabytes.
    static func memory(_ benchmark: String, ours: Int, peer: String, peerBytes: Int, target: Target) -> Row {
        guard case .memoryAtMostMegabytes(let budget) = target else { preconditionFailure("a memory row has a megabyte target") }
        return Row(
            benchmark: benchmark, ours: megabytes(ours), peer: peer, peerMeasurement: megabytes(peerBytes),
            ratio: "\(format(Double(ours) / Double(peerBytes)))× peer's", target: target,
            met: Double(ours) <= budget * 1_048_576)
    }

    /// A row comparing a count of ours (wake-ups per second, threads) with
    /// the peer's, against a limit on ours; both shown with `decimals`.
    static func count(_ benchmark: String, ours: Double, peer: String, peerCount: Double, decimals: Int, target: Target) -> Row {
        guard case .countAtMost(let limit, let unit) = target else { preconditionFailure("a count row has a count target") }
        return Row(
            benchmark: benchmark, ours: "\(format(ours, decimals: decimals)) \(unit)", peer: peer,
            peerMeasurement: "\(format(peerCount, decimals: decimals)) \(unit)",
            ratio: peerCount > 0 ? "\(format(ours / peerCount))× peer's" : "peer's is 0", target: target, met: ours <= limit)
    }

    /// A row that could not be measured, with the reason.
    static func notMeasured(_ benchmark: String, peer: String, target: Target, reason: String) -> Row {
        Row(
            benchmark: benchmark, ours: "–", peer: peer, peerMeasurement: "–", ratio: "–",
            target: target, met: nil, note: reason)
    }

    var result: String {
        switch met {
        case true?: "PASS"
        case false?: "FAIL"
        case nil: "FAIL (not measured)"
        }
    }
}

/// The table, then the notes its rows carry, then the summary line.
func render(_ rows: [Row], notes: [String]) -> String {
    let header = ["benchmark", "ICTKit", "peer", "peer time", "ratio", "target", "result"]
    let cells = rows.map { [$0.benchmark, $0.ours, $0.peer, $0.peerMeasurement, $0.ratio, $0.target.description, $0.result] }
    let widths = header.indices.map { column in
        ([header] + cells).map { $0[column].count }.max()!
    }
    func line(_ values: [String]) -> String {
        "| " + zip(values, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: " | ") + " |"
    }
    var output = [line(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"]
    output += cells.map(line)
    let rowNotes = rows.compactMap { row in row.note.map { "- \(row.benchmark): \($0)" } }
    let cpuNotes = rows.compactMap { row in row.cpuRatio.map { "- \(row.benchmark): CPU-time ratio \($0)" } }
    output.append("")
    output += rowNotes + notes.map { "- " + $0 }
    if !cpuNotes.isEmpty {
        output.append("")
        output.append(
            "CPU time (this thread's, or the child's user + system), medians: a cross-check, "
                + "as other work on the machine swells wall times much more than CPU times")
        output += cpuNotes
    }
    output.append("")
    output.append("\(rows.filter { $0.met == true }.count) of \(rows.count) targets met")
    return output.joined(separator: "\n")
}

func milliseconds(_ value: Double) -> String {
    value >= 100 ? "\(format(value, decimals: 0)) ms" : "\(format(value, decimals: value >= 10 ? 1 : 2)) ms"
}

func megabytes(_ bytes: Int) -> String {
    "\(format(Double(bytes) / 1_000_000, decimals: 1)) MB"
}

/// `value` with `decimals` decimals.
func format(_ value: Double, decimals: Int = 1) -> String {
    String(format: "%.\(decimals)f", value)
}
