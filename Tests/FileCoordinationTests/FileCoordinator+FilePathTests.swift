import FileCoordination
import Foundation
import SystemPackage
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `FilePath` forms of coordination name an item whose name is not UTF-8
/// (`held` 0xFF `.txt`) byte for byte: the closures get the same `FilePath`,
/// a write through it makes that very name (Python lists it by its bytes),
/// and a presenter presents it.
struct FileCoordinatorFilePathTests {
    /// The folder's path as a `FilePath`, plus `name`'s bytes.
    static func filePath(_ folder: ScratchFolder, _ name: [UInt8]) -> FilePath {
        FilePath(platformString: (Array(folder.path.utf8) + [UInt8(ascii: "/")] + name).map { CChar(bitPattern: $0) } + [0])
    }

    /// Writes `text` to `filePath`, creating it, by its bytes.
    static func create(_ filePath: FilePath, _ text: String) throws {
        let descriptor = filePath.withPlatformString { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        try #require(descriptor >= 0)
        _ = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    /// Each name in `folder` in hexadecimal with its contents, as Python reads them by bytes.
    static func listing(_ folder: ScratchFolder) throws -> String {
        try PythonScript.text(
            "import os, sys; f = os.fsencode(sys.argv[1]); print(sorted((n.hex(), open(f + b'/' + n, 'rb').read().decode()) for n in os.listdir(f)))",
            arguments: [folder.path])
    }

    @Test func aWriteThroughAFilePathMakesThatName() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let held = Self.filePath(folder, Array("held".utf8) + [0xFF] + Array(".txt".utf8))
        let given = try FileCoordinator().coordinate(writing: held) { path in
            try Self.create(path, "1\n")
            return path
        }
        #expect(given == held)
        let copy = Self.filePath(folder, Array("copy".utf8) + [0xFE] + Array(".txt".utf8))
        try FileCoordinator().coordinate(reading: held, writing: copy) { source, destination in
            #expect(source == held && destination == copy)
            try Self.create(destination, "2\n")
        }
        let access = try FileCoordinator().access(writing: held, timeout: .seconds(10))
        access.release()
        // "held" ff ".txt" and "copy" fe ".txt", in hexadecimal by hand.
        #expect(try Self.listing(folder) == "[('636f7079fe2e747874', '2\\n'), ('68656c64ff2e747874', '1\\n')]\n")
    }

    @Test func anIntentAndAPresenterKeepTheBytes() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let held = Self.filePath(folder, Array("held".utf8) + [0xFF] + Array(".txt".utf8))
        try Self.create(held, "0\n")
        let intent = FileAccessIntent.writingIntent(with: held)
        #expect(intent.path == held)
        // The closure of the asynchronous form gets the kit's text for the name: 0xFF as U+10FF00 + 0xFF.
        let paths = try await FileCoordinator().coordinate(with: [intent]) { paths in paths }
        #expect(paths == [folder.path + "/held\u{10FFFF}.txt"])
        let registration = try FilePresenterRegistration(presenting: held)
        defer { registration.remove() }
        #expect(registration.presentedItemPath == held)
    }
}
