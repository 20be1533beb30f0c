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
        return PathName.trimmingTrailingSlashes(url.path(percentEncoded: false))
    }

    /// `path(of:)`, or the error `notAFileURL` makes of `url` when it is
    /// not a `file:` URL: the one conversion of every module's `URL` forms,
    /// each naming its own error at the call.
    ///
    /// - Throws: `notAFileURL(url)` for any other scheme.
    package static func fileSystemPath<Failure: Error>(
        of url: URL, else notAFileURL: (URL) -> Failure
    ) throws(Failure) -> String {
        guard let path = path(of: url) else { throw notAFileURL(url) }
        return path
    }
}
