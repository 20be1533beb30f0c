/// How Foundation's values are written as text for people: the one place
/// both readers (typed streams, keyed archives) and `ict` take it from.
public enum FoundationText {
    /// A number as Foundation's `NSStringFrom…` functions print it: whole
    /// numbers without a fraction (`480`), others as the shortest decimal
    /// that reads back the same (`0.5`, `0.01592440531`).
    public static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Text in double quotes, `"` and `\` escaped with a backslash.
    public static func quoted(_ text: String) -> String {
        // By UTF-8 bytes, not Characters: a quote followed by a combining
        // mark is still a quote to escape.
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        guard text.utf8.contains(where: { $0 == quote || $0 == backslash }) else { return "\"" + text + "\"" }
        var bytes: [UInt8] = [quote]
        bytes.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            if byte == quote || byte == backslash { bytes.append(backslash) }
            bytes.append(byte)
        }
        bytes.append(quote)
        return String(decoding: bytes, as: UTF8.self)
    }
}
