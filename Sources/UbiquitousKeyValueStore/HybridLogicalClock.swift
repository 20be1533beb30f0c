#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The times the store gives changes: a hybrid logical clock, in
/// milliseconds since 1970. Each change gets the later of the wall clock and
/// one more than the latest time this device has seen — in its own changes
/// or in any other device's file it has read.
///
/// So a change made after a device has seen another's is later than it,
/// whatever the two wall clocks say: a device whose clock runs minutes
/// behind does not lose a later change against an older one it had seen
/// (its time goes past the one seen, by one millisecond). Changes made while
/// two devices could not see each other are ordered by their wall clocks,
/// which is all there is to go by (Apple's rule: "the most up-to-date value
/// for any key, based on timestamp").
public struct HybridLogicalClock: Sendable {
    /// The wall clock read: milliseconds since 1970.
    public let wallClock: @Sendable () -> Int64
    /// The latest time given or seen.
    public private(set) var latest: Int64 = 0

    /// A clock reading `wallClock` (the system's real-time clock by default;
    /// tests give one that runs behind).
    public init(wallClock: @escaping @Sendable () -> Int64 = HybridLogicalClock.systemMilliseconds) {
        self.wallClock = wallClock
    }

    /// Notes a time seen in a file, so later changes come after it.
    public mutating func observe(_ time: Int64) {
        latest = max(latest, time)
    }

    /// The time of a change made now: after every time seen, and at least the wall clock.
    public mutating func tick() -> Int64 {
        // `latest` is at most Int64.max only in a forged file; saturate rather than trap.
        latest = max(wallClock(), latest == .max ? .max : latest + 1)
        return latest
    }

    /// The system's real-time clock in milliseconds since 1970.
    public static let systemMilliseconds: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
