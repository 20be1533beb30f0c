import Foundation
import TestSupport
import Testing

/// A scratch folder (`ScratchFolder.make`) with this suite's helpers; `remove()` removes it.
struct TemporaryDirectory {
    let url: URL

    init() throws { url = try ScratchFolder.make("AppleCompatibilityTests") }

    func remove() {
        _ = try? FileManager.default.removeItem(at: url)
    }
}

/// The repository's `SampleDocs` folder.
let sampleDocs = Repository.root.appendingPathComponent("SampleDocs")

/// The inode number and hard-link count of the item at `url`, as `lstat` gives them.
func fileNumberAndLinks(_ url: URL) throws -> (fileNumber: UInt64, links: Int) {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    let fileNumber = try #require(attributes[.systemFileNumber] as? NSNumber)
    let links = try #require(attributes[.referenceCount] as? NSNumber)
    return (fileNumber.uint64Value, links.intValue)
}

/// The first 16 hex digits of the file's SHA-256, computed by python3's hashlib.
func sha256Prefix(of url: URL) throws -> String {
    try PythonScript.text("import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest()[:16])", arguments: [url.path])
        .trimmingCharacters(in: .whitespacesAndNewlines)
}
