import Foundation
import TestSupport
import Testing

@testable import ICTCommand

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The statically linked release `ict` (`make static`, installed by `make
/// install`): it runs copied alone into an empty folder, with no toolchain on
/// `PATH` and no library path, and loads no Swift library from a toolchain.
@Suite(
    .enabled(
        if: InstallArtifacts.areRequired, Comment(rawValue: InstallArtifacts.runByCheckInstall)))
struct StaticBinaryTests {
    /// The environment the copied binary runs in: nothing but a system `PATH`.
    static let bareEnvironment = ["PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": ""]

    /// A fresh folder holding only a copy of the static `ict`.
    private func copyAlone() throws -> URL {
        try #require(InstallArtifacts.staticBinaryIsBuilt, "ICT_INSTALL_TESTS=1: \(InstallArtifacts.staticBinaryNotBuilt)")
        let folder = try ScratchFolder.make("static")
        try Self.copyClosingOnExec(InstallArtifacts.staticBinary, to: folder.appendingPathComponent("ict"))
        return folder
    }

    /// Copies an executable through a descriptor no child inherits past its
    /// exec: while a child of this (parallel) test process holds a descriptor
    /// open for writing the copy, running the copy fails with ETXTBSY.
    private static func copyClosingOnExec(_ source: URL, to destination: URL) throws {
        let bytes = try Data(contentsOf: source)
        let descriptor = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                offset += count
            }
        }
    }

    @Test func printsTheVersionFromTheSource() throws {
        let folder = try copyAlone()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try ProgramRunner.run(folder.appendingPathComponent("ict").path, ["--version"], environment: Self.bareEnvironment, in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == ICTKitVersion.current + "\n")
    }

    @Test func convertsXMLToTheBytesPlistlibWrites() throws {
        let folder = try copyAlone()
        defer { try? FileManager.default.removeItem(at: folder) }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>name</key>
            \t<string>Ada</string>
            \t<key>numbers</key>
            \t<array>
            \t\t<integer>1</integer>
            \t\t<integer>300</integer>
            \t\t<integer>-7</integer>
            \t</array>
            \t<key>ok</key>
            \t<true/>
            \t<key>ratio</key>
            \t<real>0.5</real>
            </dict>
            </plist>

            """
        try Data(xml.utf8).write(to: folder.appendingPathComponent("in.plist"))
        let run = try ProgramRunner.run(
            folder.appendingPathComponent("ict").path, ["convert", "in.plist", "--format", "binary1", "-o", "out.plist"],
            environment: Self.bareEnvironment, in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        // plistlib writes objects in the order Cocoa does for this value (keys kept in document order).
        let expected = try ProgramRunner.run(
            "python3",
            [
                "-c",
                """
                import plistlib, sys
                with open(sys.argv[1], "rb") as file:
                    value = plistlib.load(file)
                sys.stdout.write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False).hex())
                """, folder.appendingPathComponent("in.plist").path,
            ])
        try #require(expected.status == 0, "python3 plistlib failed: \(expected.stderr)")
        let written = try Data(contentsOf: folder.appendingPathComponent("out.plist"))
        #expect(written.map { String(format: "%02x", $0) }.joined() == expected.stdout)
    }

    #if canImport(Glibc)
    /// On Linux `make static` links everything in (`-static-executable`):
    /// no dynamic loader runs, so nothing can be missing on another machine
    /// and no start-up goes to resolving symbols.
    @Test func isAStaticExecutable() throws {
        let folder = try copyAlone()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try ProgramRunner.run("/usr/bin/ldd", ["./ict"], environment: Self.bareEnvironment, in: folder)
        #expect(run.status != 0)
        #expect((run.stdout + run.stderr).contains("not a dynamic executable"), "ldd: \(run.stdout)\(run.stderr)")
        // No program interpreter (PT_INTERP) in the ELF program headers.
        let headers = try ProgramRunner.run("/usr/bin/readelf", ["--program-headers", "--wide", "./ict"], in: folder)
        #expect(headers.status == 0, "\(headers.stderr)")
        #expect(headers.stdout.contains("LOAD"))
        #expect(!headers.stdout.contains("INTERP"))
        #expect(!headers.stdout.contains("DYNAMIC"))
    }
    #endif
}
