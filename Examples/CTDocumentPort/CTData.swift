#if canImport(Darwin)
import Foundation
#else
import KeyedCodingAppleNames
#endif

/// The original app's document data (entry `ctdocument.data`), as a Swift
/// class on macOS and iOS: a person, a favourite number and a photo.
/// Archived as `CTData` (see `CTDocumentFiles`).
final class CTData: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    var firstName: String?
    var lastName: String?
    /// The display name; the metadata holds a copy.
    var displayName: String?
    /// Created with `NSNumber(value: Float)` by the app, so files hold a 32-bit real.
    var favoriteNumber: NSNumber?
    /// PNG bytes of the 560×560 photo.
    var photo: Data?

    override init() {
        super.init()
    }

    required init?(coder: NSCoder) {
        let version = coder.decodeCInt(forKey: "VERSION")
        guard version == 1 else {
            coder.failWithError(CTDocumentError.unsupportedVersion(Int(version), entry: "ctdocument.data"))
            return nil
        }
        firstName = coder.decodeObject(of: NSString.self, forKey: "FIRST_NAME") as String?
        lastName = coder.decodeObject(of: NSString.self, forKey: "LAST_NAME") as String?
        displayName = coder.decodeObject(of: NSString.self, forKey: "DISPLAY_NAME") as String?
        favoriteNumber = coder.decodeObject(of: NSNumber.self, forKey: "FAVORITE_NUMBER")
        photo = coder.decodeObject(of: NSData.self, forKey: "PHOTO") as Data?
        super.init()
    }

    func encode(with coder: NSCoder) {
        coder.encodeCInt(1, forKey: "VERSION")
        coder.encode(firstName, forKey: "FIRST_NAME")
        coder.encode(lastName, forKey: "LAST_NAME")
        coder.encode(displayName, forKey: "DISPLAY_NAME")
        coder.encode(favoriteNumber, forKey: "FAVORITE_NUMBER")
        coder.encode(photo, forKey: "PHOTO")
    }
}
