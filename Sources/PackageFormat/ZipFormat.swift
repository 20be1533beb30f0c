import SystemSupport

/// The zip format's records, as far as package zips use them (APPNOTE.TXT
/// 6.3): local file headers, the central directory, the end of central
/// directory record and its ZIP64 forms. Entries are stored or deflated,
/// never encrypted, on one disk.
enum ZipFormat {
    static let localHeaderSignature: UInt32 = 0x0403_4B50
    static let centralHeaderSignature: UInt32 = 0x0201_4B50
    static let endSignature: UInt32 = 0x0605_4B50
    static let zip64EndSignature: UInt32 = 0x0606_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50

    static let localHeaderSize = 30
    static let centralHeaderSize = 46
    static let endSize = 22
    static let zip64EndSize = 56
    static let zip64LocatorSize = 20
    /// The ZIP64 extended information extra field's tag.
    static let zip64ExtraTag: UInt16 = 0x0001

    static let methodStored: UInt16 = 0
    static let methodDeflated: UInt16 = 8
    /// General-purpose flag bits: the entry is encrypted; its name is UTF-8.
    static let flagEncrypted: UInt16 = 0x0001
    static let flagUTF8: UInt16 = 0x0800
    /// The entry's checksum and sizes follow its bytes in a data descriptor
    /// (the local header's are zero): an entry written to a stream.
    static let flagDataDescriptor: UInt16 = 0x0008
    static let dataDescriptorSignature: UInt32 = 0x0807_4B50
    /// "Made by" Unix, format 4.5 (ZIP64): external attributes hold `st_mode` in the high 16 bits.
    static let madeByUnix: UInt16 = 3 << 8 | 45
    static let versionNeeded: UInt16 = 20
    static let versionNeededZip64: UInt16 = 45
    /// The MS-DOS directory attribute in the low byte of the external attributes.
    static let dosDirectoryAttribute: UInt32 = 0x10

    /// A 32-bit field that says "see the ZIP64 extra field".
    static let zip64Marker32: UInt32 = 0xFFFF_FFFF
    static let zip64Marker16: UInt16 = 0xFFFF

    /// A time as MS-DOS date and time fields in local time (2-second
    /// steps, 1980 to 2107; earlier times become 1980-01-01).
    static func dosDateTime(_ time: FileTimestamp) -> (date: UInt16, time: UInt16) {
        guard let local = LocalTime(secondsSince1970: time.seconds), local.year >= 1980 else { return (0x21, 0) }
        let year = min(local.year - 1980, 127)
        let date = UInt16(year << 9 | local.month << 5 | local.day)
        let clock = UInt16(local.hour << 11 | local.minute << 5 | local.second / 2)
        return (date, clock)
    }

    /// The time MS-DOS date and time fields name, in local time; nil when
    /// they name no valid time.
    static func timestamp(dosDate date: UInt16, time: UInt16) -> FileTimestamp? {
        let local = LocalTime(
            year: Int(date >> 9) + 1980, month: Int((date >> 5) & 0x0F), day: Int(date & 0x1F),
            hour: Int(time >> 11), minute: Int((time >> 5) & 0x3F), second: Int(time & 0x1F) * 2)
        guard (1...12).contains(local.month), local.day >= 1, let seconds = local.secondsSince1970 else { return nil }
        return FileTimestamp(seconds: seconds, nanoseconds: 0)
    }
}

/// Little-endian fields appended to a byte array.
extension [UInt8] {
    mutating func appendLittleEndian<Integer: FixedWidthInteger>(_ value: Integer) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// `withUnsafeBytes` for a body that throws `DocumentPackageError` (the
    /// standard one rethrows it as `any Error`).
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws(DocumentPackageError) -> Result) throws(DocumentPackageError)
        -> Result
    {
        let outcome: Swift.Result<Result, DocumentPackageError> = withUnsafeBytes { raw in
            Swift.Result { () throws(DocumentPackageError) in try body(raw) }
        }
        return try outcome.get()
    }
}

/// Little-endian fields read from raw bytes: nil when the bytes are not there.
extension UnsafeRawBufferPointer {
    func getLittleEndian<Integer: FixedWidthInteger>(_: Integer.Type = Integer.self, at offset: Int) -> Integer? {
        guard offset >= 0, offset <= count - MemoryLayout<Integer>.size else { return nil }
        return Integer(littleEndian: loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }
}
