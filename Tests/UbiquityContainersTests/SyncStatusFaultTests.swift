import Foundation
import TestSupport
import Testing
import UbiquityContainers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 39, item 2 and acceptance 3: an engine that cannot be asked gives
/// "unknown" with the reason, at once, and never a hang — nothing listening,
/// an answer that is not JSON or not HTTP, a server that never answers, a
/// refused key — and Syncthing's own configuration is read for its address,
/// key, folders and device names, a broken one refused with its line.
struct SyncStatusFaultTests {
    /// A TCP server on 127.0.0.1 run by Python, answering every connection
    /// as `mode` says; killed when the test ends.
    final class FakeEngine {
        let process = Process()
        let port: Int

        init(_ mode: String) throws {
            let script = """
                import socket, sys, threading
                mode = sys.argv[1]
                server = socket.socket()
                server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                server.bind(("127.0.0.1", 0))
                server.listen(16)
                print(server.getsockname()[1], flush=True)
                held = []
                while True:
                    connection, _ = server.accept()
                    connection.recv(65536)
                    if mode == "silent":
                        held.append(connection)  # never answers, never closes
                        continue
                    if mode == "garbage":
                        connection.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 11\\r\\n\\r\\n{not json!}")
                    elif mode == "forbidden":
                        connection.sendall(b"HTTP/1.1 403 Forbidden\\r\\nContent-Length: 10\\r\\n\\r\\nForbidden\\n")
                    elif mode == "not-http":
                        connection.sendall(b"SSH-2.0-OpenSSH_9.2\\r\\n\\r\\n")
                    elif mode == "cut":
                        connection.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 1000\\r\\n\\r\\n{\\"myID\\"")
                    connection.close()
                """
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, mode]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var line = Data()
            while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line += byte }
            guard let port = Int(String(decoding: line, as: UTF8.self)) else { throw SyncthingDevices.Failure(description: "the fake engine gave no port") }
            self.port = port
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A folder kept by a Syncthing whose API is at `address`, with a note in it.
    private func container(address: String, key: String = "key") throws -> (UbiquityContainers, String) {
        let folder = try FileManager.default.destinationOfSymbolicLinkOrSelf(
            try ScratchFolder.make("status").path)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("a note".utf8).write(to: URL(fileURLWithPath: folder + "/Note.icfnote"))
        let configuration = UbiquityContainerConfiguration(containers: [
            UbiquityContainer(
                identifier: "iCloud.test.faults", folder: folder, engine: .syncthing(home: folder + "/no-home", folderID: "documents"),
                engineAddress: address, engineAPIKey: key)
        ])
        try configuration.write(to: folder + "/containers.plist")
        return (UbiquityContainers(configurationPath: folder + "/containers.plist", environmentFolder: nil), folder)
    }

    static let faults: [(mode: String, reason: String)] = [
        ("garbage", "not what its API gives"),
        ("forbidden", "refused the API key"),
        ("not-http", "not Syncthing's REST API"),
        ("cut", "closed before the body was whole"),
        ("silent", "did not answer within"),
    ]

    @Test(arguments: 0..<faults.count)
    func anEngineAnsweringWronglyOrNotAtAllGivesUnknownWithTheReason(fault: Int) throws {
        let (mode, reason) = Self.faults[fault]
        let engine = try FakeEngine(mode)
        let (containers, folder) = try container(address: "127.0.0.1:\(engine.port)")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Only the silent engine is waited for to the end; the others answer at once, and a
        // long bound keeps a busy machine from turning their answers into "did not answer".
        let state = containers.syncState(ofItemAt: folder + "/Note.icfnote", timeout: mode == "silent" ? 0.5 : 30)
        guard case .unknown(let said) = state else {
            Issue.record("\(mode): the state is \(state), not unknown")
            return
        }
        #expect(said.contains(reason), "\(mode): \(said)")
        #expect(said.contains("127.0.0.1:\(engine.port)"), "the reason names where the engine was asked: \(said)")
        #expect(state.summary == "unknown")
        #expect(try String(contentsOfFile: folder + "/Note.icfnote", encoding: .utf8) == "a note")
    }

    @Test func nothingListeningGivesUnknownAndAnAddressThatIsNoAddressSaysSo() throws {
        let engine = try FakeEngine("garbage")
        let port = engine.port
        kill(engine.process.processIdentifier, SIGKILL)
        engine.process.waitUntilExit()
        let (containers, folder) = try container(address: "127.0.0.1:\(port)")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let state = containers.syncState(ofItemAt: folder + "/Note.icfnote", timeout: 0.5)
        #expect("\(state)".contains("not answering"), "\(state)")

        let (named, namedFolder) = try container(address: "syncthing.example:8384")
        defer { try? FileManager.default.removeItem(atPath: namedFolder) }
        let unnamed = named.syncState(ofItemAt: namedFolder + "/Note.icfnote", timeout: 0.5)
        #expect("\(unnamed)".contains("is not a numeric address"), "\(unnamed)")
    }

    @Test func aSyncthingHomeWithoutItsConfigurationOrWithABrokenOneSaysWhichFile() throws {
        let folder = try FileManager.default.destinationOfSymbolicLinkOrSelf(
            try ScratchFolder.make("status").path)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/home", withIntermediateDirectories: true)
        try Data("a note".utf8).write(to: URL(fileURLWithPath: folder + "/Note.icfnote"))
        let configuration = UbiquityContainerConfiguration(containers: [
            UbiquityContainer(identifier: "iCloud.test.home", folder: folder, engine: .syncthing(home: folder + "/home", folderID: nil))
        ])
        try configuration.write(to: folder + "/containers.plist")
        let containers = UbiquityContainers(configurationPath: folder + "/containers.plist", environmentFolder: nil)
        let missing = containers.syncState(ofItemAt: folder + "/Note.icfnote")
        #expect("\(missing)".contains(folder + "/home/config.xml") && "\(missing)".contains("cannot read"), "\(missing)")
        try Data("<configuration>\n  <gui>\n    <address>127.0.0.1:1</address>\n  </gui\n".utf8).write(to: URL(fileURLWithPath: folder + "/home/config.xml"))
        let broken = containers.syncState(ofItemAt: folder + "/Note.icfnote")
        #expect("\(broken)".contains(folder + "/home/config.xml") && "\(broken)".contains("(at 5:"), "\(broken)")
    }

    @Test func syncthingsConfigurationGivesTheAddressKeyFoldersAndDeviceNames() throws {
        let xml = """
            <configuration version="36">
                <folder id="notes" label="Notes" path="/srv/notes" type="sendreceive">
                    <device id="AAAAAAA-BBBBBBB-CCCCCCC-DDDDDDD-EEEEEEE-FFFFFFF-GGGGGGG-HHHHHHH"></device>
                    <device id="ABCDEFG-BBBBBBB-CCCCCCC-DDDDDDD-EEEEEEE-FFFFFFF-GGGGGGG-IIIIIII"></device>
                    <paused>true</paused>
                </folder>
                <device id="AAAAAAA-BBBBBBB-CCCCCCC-DDDDDDD-EEEEEEE-FFFFFFF-GGGGGGG-HHHHHHH" name="laptop"></device>
                <device id="ABCDEFG-BBBBBBB-CCCCCCC-DDDDDDD-EEEEEEE-FFFFFFF-GGGGGGG-IIIIIII" name="Ada’s desktop"></device>
                <gui enabled="true" tls="false"><address>127.0.0.1:8384</address><apikey>s3cret</apikey></gui>
            </configuration>
            """
        let configuration = try SyncthingConfiguration.read(Array(xml.utf8), file: "config.xml")
        #expect(configuration.address == "127.0.0.1:8384" && configuration.apiKey == "s3cret" && !configuration.usesTLS)
        #expect(configuration.folders.map(\.id) == ["notes"] && configuration.folders[0].paused && configuration.folders[0].devices.count == 2)
        // A conflict copy names its device by the first seven characters of its ID.
        #expect(configuration.deviceName(of: "ABCDEFG") == "Ada’s desktop")
        #expect(configuration.deviceName(of: "ZZZZZZZ") == nil)

        #expect {
            try SyncthingConfiguration.read(Array("<configuration>\n<gui><address>127.0.0.1:8384</address>\n</configuration>".utf8), file: "config.xml")
        } throws: { error in
            let error = error as? UbiquityContainerError
            return error?.code == .configuration && error?.path == "config.xml" && error?.place.hasPrefix("3:") == true
        }
        #expect {
            try SyncthingConfiguration.read(Array("<configuration><gui></gui></configuration>".utf8), file: "config.xml")
        } throws: { error in (error as? UbiquityContainerError)?.message.contains("no address") == true }
    }
}
