import Foundation

/// Builds binary property lists byte by byte, for tests that need a file no
/// writer would make (a shared container, a cycle, a bad marker).
public enum BinaryPropertyListBytes {
    /// The header, `objects` (each object's bytes, in order), an offset
    /// table of `offsetSize`-byte entries and the trailer: `top` is the top
    /// object's number, `referenceSize` the size the objects' references
    /// were written with; `objectCount` and `tableOffset` default to the
    /// true ones, so a test can make them lie.
    public static func file(
        objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1, referenceSize: UInt8 = 1,
        objectCount: UInt64? = nil, tableOffset: UInt64? = nil
    ) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets {
            for shift in stride(from: (max(Int(offsetSize), 1) - 1) * 8, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: offset >> shift))
            }
        }
        func be64(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) } }
        bytes += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
        bytes += be64(objectCount ?? UInt64(objects.count)) + be64(top) + be64(tableOffset ?? UInt64(table))
        return Data(bytes)
    }
}
