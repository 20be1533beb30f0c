#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Times ICTKit and its peer the same way, in one interleaved series: warm-up
/// runs of each first (page cache, lazily bound symbols, allocator pools),
/// then timed rounds that run both, alternating which goes first, so that
/// whatever else the machine is doing falls on both sides alike. The median
/// of each side's runs is what the table shows.
///
/// Slow work stops repeating early: after `minimumRepetitions` rounds, no new
/// round starts once the timed ones have used up `budget`. The table says
/// when a median is of fewer runs than asked.
///
/// Each run's CPU time is taken too (this thread's, or a child's user plus
/// system time): on a machine busy with other work the wall times swell by
/// chance, the CPU times much less, so their ratio is a cross-check.
///
/// The result of each run is kept until the clock has stopped and released
/// after it, on both sides alike, so freeing a large tree is not counted for
/// either. It is handed to `keep(_:)`, which the optimiser cannot see into,
/// so the work cannot be dropped as unused.
struct Stopwatch {
    var warmUpRuns: Int
    var repetitions: Int
    /// Log every run's time.
    var verbose: Bool
    var minimumRepetitions = 3
    var budget: Duration = .seconds(40)

    init(warmUpRuns: Int, repetitions: Int, verbose: Bool) {
        self.warmUpRuns = warmUpRuns
        self.repetitions = repetitions
        self.verbose = verbose
    }

    /// The median wall times of runs of `ours` and of `peer`.
    func compare<Ours, Peer>(_ ours: () throws -> Ours, _ peer: () throws -> Peer) rethrows -> (ours: Timing, peer: Timing) {
        try compare(reported: { try Self.time(ours) }, { try Self.time(peer) })
    }

    /// The medians of the durations `ours` and `peer` report, for work timed
    /// elsewhere (a child process, from spawn to exit).
    func compare(reported ours: () throws -> Sample, _ peer: () throws -> Sample) rethrows -> (ours: Timing, peer: Timing) {
        for _ in 0..<warmUpRuns {
            let (first, second) = (try ours(), try peer())
            if verbose { log("  warm-up: ICTKit \(first), peer \(second)") }
        }
        var ourSamples: [Sample] = [], peerSamples: [Sample] = []
        var total = Duration.zero
        while ourSamples.count < repetitions, ourSamples.count < minimumRepetitions || total < budget {
            let (first, second): (Sample, Sample)
            if ourSamples.count % 2 == 0 {
                first = try ours()
                second = try peer()
            } else {
                second = try peer()
                first = try ours()
            }
            ourSamples.append(first)
            peerSamples.append(second)
            total += first.wall + second.wall
            if verbose { log("  run \(ourSamples.count): ICTKit \(first), peer \(second)") }
        }
        return (Timing(ourSamples, asked: repetitions), Timing(peerSamples, asked: repetitions))
    }

    /// One run of `work`: its wall time and this thread's CPU time, or with
    /// `everyThread`, the CPU time of every thread of the process (for work
    /// that starts threads of its own).
    static func time<Result>(everyThread: Bool = false, _ work: () throws -> Result) rethrows -> Sample {
        let clock = ContinuousClock()
        let cpuClock = everyThread ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID
        let startCPU = cpuTime(cpuClock)
        let start = clock.now
        let result = try work()
        let elapsed = clock.now - start
        let elapsedCPU = cpuTime(cpuClock) - startCPU
        keep(result)
        return Sample(wall: elapsed, cpu: elapsedCPU)
    }

    /// The CPU time `clock` has counted: this thread's or this process's.
    /// The corresponding C function is `clock_gettime`.
    private static func cpuTime(_ clock: clockid_t) -> Duration {
        var now = timespec()
        clock_gettime(clock, &now)
        return .seconds(Int64(now.tv_sec)) + .nanoseconds(Int64(now.tv_nsec))
    }

    static func median(of samples: [Duration]) -> Duration {
        precondition(!samples.isEmpty, "a median needs at least one sample")
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// One run: its wall time and the CPU time it used.
struct Sample: CustomStringConvertible {
    var wall: Duration
    var cpu: Duration

    var description: String {
        "\(format(wall.milliseconds, decimals: 2)) ms (CPU \(format(cpu.milliseconds, decimals: 2)) ms)"
    }
}

/// The medians of a series of runs and how many runs they are of.
struct Timing {
    var median: Duration
    var medianCPU: Duration
    var runs: Int
    var asked: Int

    init(_ samples: [Sample], asked: Int) {
        median = Stopwatch.median(of: samples.map(\.wall))
        medianCPU = Stopwatch.median(of: samples.map(\.cpu))
        runs = samples.count
        self.asked = asked
    }

    /// " (3 runs)" when the time budget cut the repetitions short, else "".
    var fewerRunsThanAsked: String {
        runs < asked ? " (\(runs) runs)" : ""
    }
}

/// Makes `value` look used to the optimiser.
@inline(never) @_optimize(none)
func keep<Value>(_ value: Value) {
    _ = value
}

extension Duration {
    /// This duration in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// This duration in milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e3 + Double(attoseconds) * 1e-15
    }
}
