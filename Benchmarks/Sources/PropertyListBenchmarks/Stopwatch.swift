/// Times a piece of work the same way for ICTKit and for its peer: warm-up
/// runs first (page cache, lazily bound symbols, allocator pools), then
/// timed repetitions, and the median is what the table shows.
///
/// Slow work stops repeating early: after `minimumRepetitions`, no new
/// repetition starts once the timed ones have used up `budget`. The table
/// says when a median is of fewer runs than asked.
///
/// The result of each repetition is kept until the clock has stopped and
/// released after it, on both sides alike, so freeing a large tree is not
/// counted for either. The result is handed to `keep(_:)`, which the
/// optimiser cannot see into, so the work cannot be dropped as unused.
struct Stopwatch {
    var warmUpRuns: Int
    var repetitions: Int
    var minimumRepetitions = 3
    var budget: Duration = .seconds(30)

    /// The median wall time of runs of `work`.
    func median<Result>(_ work: () throws -> Result) rethrows -> Timing {
        let clock = ContinuousClock()
        return try median(ofReported: {
            let start = clock.now
            let result = try work()
            let elapsed = clock.now - start
            keep(result)
            return elapsed
        })
    }

    /// The median of the durations `measure` reports, for work timed
    /// elsewhere (a child process, from spawn to exit).
    func median(ofReported measure: () throws -> Duration) rethrows -> Timing {
        for _ in 0..<warmUpRuns {
            _ = try measure()
        }
        var samples: [Duration] = []
        var total = Duration.zero
        while samples.count < repetitions, samples.count < minimumRepetitions || total < budget {
            let sample = try measure()
            samples.append(sample)
            total += sample
        }
        return Timing(median: Self.median(of: samples), runs: samples.count, asked: repetitions)
    }

    static func median(of samples: [Duration]) -> Duration {
        precondition(!samples.isEmpty, "a median needs at least one sample")
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// A median and how many timed runs it is of.
struct Timing {
    var median: Duration
    var runs: Int
    var asked: Int

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
    /// This duration in milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e3 + Double(attoseconds) * 1e-15
    }
}
