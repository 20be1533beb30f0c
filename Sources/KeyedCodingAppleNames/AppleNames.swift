// Foundation's names for KeyedCoding's types, so code written against
// Apple's NSCoding API compiles on Linux with only its import changed:
//
//     #if canImport(Darwin)
//     import Foundation
//     #else
//     import KeyedCodingAppleNames
//     #endif
//
// A module of its own, so that a file importing Foundation and KeyedCoding
// together never sees two `NSCoder`s. Foundation's value classes are named by
// the Swift types they decode as (`NSString` is `String`), so
// `decodeObject(of: NSString.self, forKey:) as String?` reads the same on
// both platforms. Not built on Apple platforms, where Foundation has them.

#if !canImport(Darwin)
@_exported import FoundationEssentials
@_exported import KeyedCoding
// Foundation re-exports the C library (`exit`, `errno`); so does this module,
// on purpose: ported code calls them with no import of its own. The one platform
// import outside SystemSupport, which makes every system call ICTKit itself makes.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#endif

/// `NSObject`: the root of archivable classes.
public typealias NSObject = ArchivableObject
/// `NSCoding`.
public typealias NSCoding = ArchiveCoding
/// `NSSecureCoding`.
public typealias NSSecureCoding = ArchiveSecureCoding
/// `NSCoder`.
public typealias NSCoder = ArchiveCoder
/// `NSKeyedArchiver`.
public typealias NSKeyedArchiver = KeyedObjectArchiver
/// `NSKeyedUnarchiver`.
public typealias NSKeyedUnarchiver = KeyedObjectUnarchiver
/// `NSNumber`.
public typealias NSNumber = ArchivedNumber
/// `NSString`, decoded as a Swift string.
public typealias NSString = String
/// `NSData`, decoded as `Data`.
public typealias NSData = Data
/// `NSDate`, decoded as `Date`.
public typealias NSDate = Date
/// `NSUUID`, decoded as `UUID`.
public typealias NSUUID = UUID
/// `NSURL`, decoded as `URL`.
public typealias NSURL = URL
/// `NSNull`.
public typealias NSNull = ArchivedNull
/// `NSArray`, decoded as `[Any]`.
public typealias NSArray = [Any]
/// `NSDictionary`, decoded as `[AnyHashable: Any]`.
public typealias NSDictionary = [AnyHashable: Any]
/// `NSSet`, decoded as `Set<AnyHashable>`.
public typealias NSSet = Set<AnyHashable>

/// `NSKeyedArchiveRootObjectKey`: the `$top` key of `archivedData(withRootObject:)`.
public let NSKeyedArchiveRootObjectKey = "root"
#endif
