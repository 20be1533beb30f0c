#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The path a `file:` URL names, for the `URL` forms of the functions that
/// take a `String` path. Any other URL is refused (the caller throws its own
/// module's error naming the URL), never fetched.
package enum FileURL {
    /// The percent-decoded path of `url`, without the trailing slash of a
    /// directory's URL (as `URL.path`; `/` stays); nil when `url` is not a
    /// `file:` URL.
    package static func path(of url: URL) -> String? {
        guard url.isFileURL else { return nil }
        var path = url.path(percentEncoded: false)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
