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
                target.path = removingDotSegments(ref.path.hasPrefix("/") ? ref.path : merge(base, ref.path))
                target.query = ref.query
            }
        }
        return target.joined(path: target.path)
    }

    /// The base's path up to its last `/`, then `path` (section 5.2.3).
    private static func merge(_ base: Parts, _ path: String) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    /// Section 5.2.4: `/a/b/../c/./d` → `/a/c/d`.
    static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") || input == "/.." {
                input = input == "/.." ? "/" : input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
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
            if let hash = rest.firstIndex(of: "#") {
                fragment = rest[rest.index(after: hash)...]
                rest = rest[..<hash]
            }
            if let question = rest.firstIndex(of: "?") {
                query = rest[rest.index(after: question)...]
                rest = rest[..<question]
            }
            if let colon = rest.firstIndex(of: ":"), Self.isScheme(rest[..<colon]) {
                scheme = rest[..<colon]
                rest = rest[rest.index(after: colon)...]
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex(of: "/") ?? rest.endIndex
                authority = rest[..<end]
                rest = rest[end...]
            }
            path = String(rest)
        }

        /// ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
        private static func isScheme(_ text: Substring) -> Bool {
            guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
            return text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
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
