import SystemSupport

/// What the command line's texts must be.
package enum ArgumentText {
    /// Why the argument `text` given to `option` cannot be text: it holds a
    /// byte that is not UTF-8 (which `RawFileName` carries for file names),
    /// and a string in a property list or a note is Unicode text. Nil when
    /// it is UTF-8 (or not given).
    package static func notUTF8Problem(_ text: String?, option: String) -> String? {
        guard let text, let (byte, offset) = RawFileName.firstByteNotUTF8(in: text) else { return nil }
        let hex = String(byte, radix: 16, uppercase: true)
        return "\(option) is not UTF-8 text: byte 0x\(hex) at offset \(offset) of the argument"
    }
}
