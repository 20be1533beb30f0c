import Foundation
import TestSupport
import Testing

@testable import SystemSupport

/// The process, terminal, time and number wrappers, against values worked
/// out by hand or given by Foundation.
struct ProcessCallsTests {
    @Test func fixedPointIsCsPercentF() {
        // C's %f: six decimals, rounded half to even on the binary value (Python's "%f" % x gives the same).
        #expect(CNumberFormat.fixedPoint(1.5) == "1.500000")
        #expect(CNumberFormat.fixedPoint(-0.0) == "-0.000000")
        #expect(CNumberFormat.fixedPoint(0.1234565) == "0.123456")
        #expect(CNumberFormat.fixedPoint(1e20) == "100000000000000000000.000000")
        #expect(CNumberFormat.fixedPoint(.infinity) == "inf")
        #expect(CNumberFormat.fixedPoint(-.greatestFiniteMagnitude).count == 317)
    }

    @Test func decimalLogarithm() {
        #expect(CMath.log10(1000) == 3)
        #expect(CMath.log10(1) == 0)
        #expect(CMath.log10(0) == -.infinity)
    }

    @Test func memoryBytesCompareTheirCountOnly() {
        let first: [UInt8] = [1, 2, 3, 4]
        let second: [UInt8] = [1, 2, 3, 5]
        first.withUnsafeBytes { a in
            second.withUnsafeBytes { b in
                #expect(MemoryBytes.equal(a.baseAddress!, b.baseAddress!, count: 3))
                #expect(!MemoryBytes.equal(a.baseAddress!, b.baseAddress!, count: 4))
            }
        }
    }

    @Test func environmentValueIsWhatTheProcessWasGiven() {
        #expect(Environment.value("PATH") == ProcessInfo.processInfo.environment["PATH"])
        #expect(Environment.value("ICTKIT_NO_SUCH_VARIABLE_\(UUID().uuidString.prefix(8))") == nil)
    }

    @Test func aFileAndAPathThatCannotBeOpenedAreNotTerminals() throws {
        let file = ScratchFolder.filePath("ProcessCallsTests", extension: "txt")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(!Terminal.isTerminal(path: file))
        #expect(!Terminal.isTerminal(path: "/dev/null"))
        #expect(!Terminal.isTerminal(path: file + "/missing"))
    }

    @Test func effectiveUserIDIsTheOwnerOfANewFile() throws {
        let file = ScratchFolder.filePath("ProcessCallsTests", extension: "txt")
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let owner = try FileManager.default.attributesOfItem(atPath: file)[.ownerAccountID] as? NSNumber
        #expect(owner?.uint32Value == CurrentProcess.effectiveUserID)
    }

    /// A local time and back: the seconds Foundation's calendar gives for
    /// the same fields in the same (process's) time zone.
    @Test func localTimeAgreesWithFoundationsCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        let seconds: Int64 = 1_700_000_000  // 2023-11-14 22:13:20 UTC
        let local = try #require(LocalTime(secondsSince1970: seconds))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(seconds)))
        #expect(
            [local.year, local.month, local.day, local.hour, local.minute, local.second]
                == [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second])
        #expect(local.secondsSince1970 == seconds)
        // Fields out of range carry: 31 February 1981 is 3 March.
        let carried = LocalTime(year: 1981, month: 2, day: 31, hour: 12, minute: 0, second: 0)
        let march = LocalTime(year: 1981, month: 3, day: 3, hour: 12, minute: 0, second: 0)
        #expect(carried.secondsSince1970 == march.secondsSince1970)
    }

}
