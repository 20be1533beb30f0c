import Testing
import UbiquitousKeyValueStore

/// The hybrid logical clock, against times worked out by hand beside each step.
struct HybridLogicalClockTests {
    @Test func aTimeIsTheWallClockUnlessALaterOneWasSeen() {
        var clock = HybridLogicalClock(wallClock: { 1_000 })
        #expect(clock.tick() == 1_000, "nothing seen: the wall clock")
        #expect(clock.tick() == 1_001, "the wall clock stands still: one past the last given")
        clock.observe(91_000)  // another device's change, 90 s ahead of this clock
        #expect(clock.tick() == 91_001, "after a change seen: one past it, though the wall clock says 1,000")
        clock.observe(5_000)
        #expect(clock.tick() == 91_002, "an older time seen changes nothing")
    }

    @Test func aWallClockAheadOfEverythingSeenIsTaken() {
        var clock = HybridLogicalClock(wallClock: { 500_000 })
        clock.observe(400_000)
        #expect(clock.tick() == 500_000)
    }

    @Test func aForgedLatestTimeSaturatesRatherThanTraps() {
        var clock = HybridLogicalClock(wallClock: { 0 })
        clock.observe(.max)
        #expect(clock.tick() == .max)
    }
}
