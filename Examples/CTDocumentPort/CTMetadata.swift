#if canImport(Darwin)
import Foundation
#else
import KeyedCodingAppleNames
#endif

/// The original app's document metadata (entry `ctdocument.metadata`), as
/// a Swift class on macOS and iOS: what a list of documents shows without
/// reading the data entry. Archived as `CTMetadata` (see `CTDocumentFiles`).
final class CTMetadata: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    /// PNG bytes of the 280×280 thumbnail.
    var thumbnail: Data?
    /// The name shown in document lists.
    var displayName: String?

    override init() {
        super.init()
    }

    required init?(coder: NSCoder) {
        let version = coder.decodeCInt(forKey: "VERSION")
        guard version == 1 else {
            coder.failWithError(CTDocumentError.unsupportedVersion(Int(version), entry: "ctdocument.metadata"))
            return nil
        }
        thumbnail = coder.decodeObject(of: NSData.self, forKey: "THUMBNAIL") as Data?
        displayName = coder.decodeObject(of: NSString.self, forKey: "DISPLAY NAME") as String?
        super.init()
    }

    func encode(with coder: NSCoder) {
        coder.encodeCInt(1, forKey: "VERSION")
        coder.encode(thumbnail, forKey: "THUMBNAIL")
        coder.encode(displayName, forKey: "DISPLAY NAME")
    }
}
