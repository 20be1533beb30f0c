/// A point, size, rect or range held in an `NSValue`.
public enum FoundationGeometry: Hashable, Sendable, CustomStringConvertible {
    /// `NSPoint`/`CGPoint`.
    case point(x: Double, y: Double)
    /// `NSSize`/`CGSize`.
    case size(width: Double, height: Double)
    /// `NSRect`/`CGRect`.
    case rect(x: Double, y: Double, width: Double, height: Double)
    /// `NSRange`.
    case range(TextRange)

    /// Which of the four a geometry value is.
    public enum Kind: Hashable, Sendable {
        /// A point, `{x, y}`.
        case point
        /// A size, `{width, height}`.
        case size
        /// A rect, `{{x, y}, {width, height}}`.
        case rect
    }

    /// As `NSStringFromPoint`, `NSStringFromSize`, `NSStringFromRect` and
    /// `NSStringFromRange` write it on Apple's platforms: `{{0, 0}, {480, 360}}`.
    public var description: String {
        switch self {
        case .point(let x, let y): "{\(FoundationText.number(x)), \(FoundationText.number(y))}"
        case .size(let width, let height): "{\(FoundationText.number(width)), \(FoundationText.number(height))}"
        case .rect(let x, let y, let width, let height):
            "{{\(FoundationText.number(x)), \(FoundationText.number(y))}, {\(FoundationText.number(width)), \(FoundationText.number(height))}}"
        case .range(let range): range.description
        }
    }

    /// Reads the text `NSStringFromPoint`, `NSStringFromSize` or
    /// `NSStringFromRect` wrote (what a keyed archive's `NS.pointval`,
    /// `NS.sizeval`, `NS.rectval` hold): `{1.5, -2}`, `{{0.0, 0.0}, {10.0, 10.0}}`.
    /// nil when the braces are not the kind's or a number does not read.
    public init?(text: String, kind: Kind) {
        var numbers: [Double] = []
        var shape = ""
        var word = ""
        func flush() -> Bool {
            defer { word = "" }
            let trimmed = word.trimmingSpaces
            guard !trimmed.isEmpty else { return true }
            guard trimmed.utf8.count <= 64, let number = Double(trimmed) else { return false }
            numbers.append(number)
            shape.append("n")
            return true
        }
        for character in text {
            switch character {
            case "{", "}", ",":
                guard flush() else { return nil }
                if character != "," { shape.append(character) }
            default: word.append(character)
            }
        }
        guard flush(), word.isEmpty else { return nil }
        switch (kind, shape) {
        case (.point, "{nn}"): self = .point(x: numbers[0], y: numbers[1])
        case (.size, "{nn}"): self = .size(width: numbers[0], height: numbers[1])
        case (.rect, "{{nn}{nn}}"): self = .rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        default: return nil
        }
    }
}

extension String {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        var view = Substring(self)
        while view.first == " " { view.removeFirst() }
        while view.last == " " { view.removeLast() }
        return String(view)
    }
}
