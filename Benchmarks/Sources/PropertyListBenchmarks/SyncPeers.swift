import Foundation
import SyncthingHarness
import UbiquityContainers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What rows P and K1 share on their devices: the scan that starts
/// propagation, asked the same way for ours and the peer's file, and the
/// peer's plain write.
struct SyncPeers {
    let engine: SyncthingClient

    /// Asks `sender`'s Syncthing for its scans.
    init(sender: SyncthingDevices.Device) {
        engine = SyncthingClient(address: sender.restAddress, apiKey: sender.apiKey, timeout: 30)
    }

    /// Asks for a scan of `name` in the devices' folder.
    func scan(_ name: String) throws {
        let sub = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        try engine.post("/rest/db/scan?folder=\(SyncthingDevices.folderID)&sub=\(sub)")
    }

    /// Writes `bytes` as a new file at `path` with one `write`, as a program without ICTKit does.
    static func writePlainly(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchmarkFailure("cannot make \(path): errno \(errno)") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw BenchmarkFailure("cannot write \(path): errno \(errno)") }
    }
}
