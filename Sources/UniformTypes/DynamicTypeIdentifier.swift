/// Stable identifiers for types nobody declared: `dyn.a` followed by the
/// tag class and tag, `<class>=<tag>` in UTF-8, in lower-case base-32
/// (RFC 4648's alphabet `a–z`, `2–7`, no padding).
///
/// This is ICTKit's encoding, not Apple's (Apple's is undocumented). It shares
/// the `dyn.` prefix, so no declared identifier can collide; it uses only
/// letters and digits, so it is a well-formed identifier; it is a pure
/// function of the tag, so the same tag gives the same identifier in every
/// run and on every machine; and it can be decoded, so `ict types show dyn.…`
/// can say which tag it stands for. Tags of case-insensitive classes are
/// lower-cased first, so `PNG` and `png` give one identifier.
public enum DynamicTypeIdentifier {
    /// The prefix every dynamic identifier starts with.
    public static let prefix = "dyn.a"
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// The dynamic identifier for `tag` of `tagClass`.
    public static func make(tag: String, tagClass: TypeTagClass) -> String {
        var bytes = Array(tagClass.rawValue.utf8)  // "class=tag", without interpolation's cost.
        bytes.append(UInt8(ascii: "="))
        bytes.append(contentsOf: tagClass.normalized(tag).utf8)
        let alphabet = Self.alphabet
        var output = Array(prefix.utf8)
        output.reserveCapacity(prefix.utf8.count + (bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bitCount = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bitCount += 8
            while bitCount >= 5 {
                bitCount -= 5
                output.append(alphabet[Int((buffer >> UInt32(bitCount)) & 31)])
            }
        }
        if bitCount > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bitCount)) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The tag class and tag a dynamic identifier stands for, or nil when
    /// `identifier` is not one this encoding made.
    public static func decode(_ identifier: String) -> (tagClass: TypeTagClass, tag: String)? {
        let lowered = identifier.lowercased()
        guard lowered.hasPrefix(prefix) else { return nil }
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bitCount = 0
        for character in lowered.utf8.dropFirst(prefix.utf8.count) {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bitCount += 5
            if bitCount >= 8 {
                bitCount -= 8
                bytes.append(UInt8((buffer >> UInt32(bitCount)) & 0xFF))
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self), let equals = text.firstIndex(of: "=") else { return nil }
        return (TypeTagClass(rawValue: String(text[..<equals])), String(text[text.index(after: equals)...]))
    }
}
