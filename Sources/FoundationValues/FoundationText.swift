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
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}
