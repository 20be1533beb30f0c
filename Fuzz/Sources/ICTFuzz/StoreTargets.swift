import CoreDataFiles
import Foundation
import SystemPackage

/// A Core Data store over a temporary copy of the input: whatever the bytes, reading every object and
/// validating never crashes, never changes the file and never writes a companion (`-wal`, `-shm`, `-journal`)
/// beside it.
func fuzzCoreDataStore(_ bytes: [UInt8]) {
    let folder = "\(scratchFolder)/store"
    removeItem(folder)
    mkdir(folder, 0o700)
    let path = "\(folder)/input.sqlite"
    writeFile(path, bytes)
    if let reader = try? PersistentStoreReader(path: FilePath(path)) {
        try? reader.forEachObject { _ in }
        _ = reader.validate()
    }
    let listing = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    require(listing == ["input.sqlite"], "reading the store wrote beside it: \(listing)")
    require(readFile(path) == bytes, "reading the store changed it")
}
