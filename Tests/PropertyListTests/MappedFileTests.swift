import Foundation
import PropertyList
import TestSupport
import Testing

/// `MappedFile` of files whose status says 0 bytes but which have content,
/// as Linux's `/proc` files do: read to their end, within the limit.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs Linux's /proc"))
struct MappedFileTests {
    @Test func aProcFileIsReadToItsEnd() throws {
        var status = stat()
        #expect(stat("/proc/self/status", &status) == 0)
        #expect(status.st_size == 0, "the premise: /proc states no size")
        let file = try MappedFile(path: "/proc/self/status")
        #expect(file.bytes.count > 100)
        #expect(file.bytes.starts(with: "Name:".utf8))
        // The same bytes `cat` would print, up to the fields that change between reads.
        let text = String(decoding: file.bytes, as: UTF8.self)
        #expect(text.contains("\nPid:\t\(getpid())\n"))
    }

    @Test func aFileOfNoStatedSizeIsReadOnlyUpToTheLimit() throws {
        let descriptor = open("/proc/self/status", O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        do {
            _ = try MappedFile(descriptor: descriptor, path: "/proc/self/status", limit: 10)
            Issue.record("read past the limit")
        } catch {
            #expect(error.code == .limitExceeded(.inputSize))
        }
    }

    @Test func anEmptyFileIsStillEmpty() throws {
        let path = ScratchFolder.filePath("empty", extension: "bin")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try MappedFile(path: path).bytes.isEmpty)
    }
}
