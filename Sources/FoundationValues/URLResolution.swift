/// Resolving a relative URL reference against a base (RFC 3986, section 5.2),
/// on the strings alone: no percent-decoding, no normalisation beyond the
/// removal of `.` and `..` segments that the RFC asks for.
enum URLResolution {
    /// `reference` resolved against `base`.
    static func resolve(_ reference: String, against base: String) -> String {
        let ref = Parts(reference)
        if ref.scheme != nil { return ref.joined(path: removingDotSegments(ref.path)) }
        let base = Parts(base)
        var target = Parts(scheme: base.scheme, authority: nil, path: "", query: nil, fragment: ref.fragment)
        if ref.authority != nil {
            target.authority = ref.authority
            target.path = removingDotSegments(ref.path)
            target.query = ref.query
        } else {
            target.authority = base.authority
            if ref.path.isEmpty {
                target.path = base.path
                target.query = ref.query ?? base.query
            } else {
                target.path = removingDotSegments(ref.path.hasPrefix("/") ? ref.path : merge(base, ref.path))  // A URL's path (RFC 3986), not a path.
                target.query = ref.query
            }
        }
        return target.joined(path: target.path)
    }

    /// The base's path up to its last `/`, then `path` (section 5.2.3).
    private static func merge(_ base: Parts, _ path: String) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        guard let slash = base.path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(base.path[...slash]) + path
    }

    /// Section 5.2.4: `/a/b/../c/./d` → `/a/c/d`. Works on the UTF-8 bytes:
    /// the RFC's characters are ASCII, and a combining mark after a `/` or
    /// `.` must not hide it as a `Character` would.
    static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if starts(input, "../") {
                input = input.utf8.dropFirst(3).substring
            } else if starts(input, "./") {
                input = input.utf8.dropFirst(2).substring
            } else if starts(input, "/./") {
                input = input.utf8.dropFirst(2).substring
            } else if equals(input, "/.") {
                input = "/"
            } else if starts(input, "/../") || equals(input, "/..") {
                input = equals(input, "/..") ? "/" : input.utf8.dropFirst(3).substring
                if !output.isEmpty { output.removeLast() }
            } else if equals(input, ".") || equals(input, "..") {
                input = ""
            } else {
                let bytes = input.utf8
                let start = bytes.first == UInt8(ascii: "/") ? bytes.index(after: bytes.startIndex) : bytes.startIndex
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    private static func starts(_ text: Substring, _ prefix: StaticString) -> Bool {
        text.utf8.starts(with: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    }

    private static func equals(_ text: Substring, _ other: StaticString) -> Bool {
        text.utf8.elementsEqual(UnsafeBufferPointer(start: other.utf8Start, count: other.utf8CodeUnitCount))
    }

    /// A URL reference split into its five parts (RFC 3986, appendix B).
    private struct Parts {
        var scheme: Substring?
        var authority: Substring?
        var path: String
        var query: Substring?
        var fragment: Substring?

        init(scheme: Substring?, authority: Substring?, path: String, query: Substring?, fragment: Substring?) {
            self.scheme = scheme
            self.authority = authority
            self.path = path
            self.query = query
            self.fragment = fragment
        }

        init(_ text: String) {
            var rest = Substring(text)
            if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
                fragment = rest[rest.utf8.index(after: hash)...]
                rest = rest[..<hash]
            }
            if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
                query = rest[rest.utf8.index(after: question)...]
                rest = rest[..<question]
            }
            if let colon = rest.utf8.firstIndex(of: UInt8(ascii: ":")), Self.isScheme(rest.utf8[..<colon]) {
                scheme = rest[..<colon]
                rest = rest[rest.utf8.index(after: colon)...]
            }
            if URLResolution.starts(rest, "//") {
                rest = rest.utf8.dropFirst(2).substring
                let end = rest.utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
                authority = rest[..<end]
                rest = rest[end...]
            }
            path = String(rest)
        }

        /// ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
        private static func isScheme(_ bytes: Substring.UTF8View.SubSequence) -> Bool {
            func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
            guard let first = bytes.first, isLetter(first) else { return false }
            return bytes.allSatisfy {
                isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            }
        }

        func joined(path: String) -> String {
            var result = ""
            if let scheme { result += scheme + ":" }
            if let authority { result += "//" + authority }
            result += path
            if let query { result += "?" + query }
            if let fragment { result += "#" + fragment }
            return result
        }
    }
}

private extension Substring.UTF8View.SubSequence {
    /// The substring these bytes are a view of.
    var substring: Substring { Substring(self) }
}
