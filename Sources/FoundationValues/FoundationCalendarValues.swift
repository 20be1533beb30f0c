/// A set of indexes (`NSIndexSet`, `NSMutableIndexSet`) as its ranges, in order.
public struct FoundationIndexSet: Hashable, Sendable, CustomStringConvertible {
    /// The ranges, ascending, none empty.
    public var ranges: [TextRange]

    /// Makes an index set.
    public init(ranges: [TextRange]) {
        self.ranges = ranges
    }

    /// How many indexes.
    public var count: Int { ranges.reduce(0) { $0 + $1.length } }

    /// `(1-2, 10, 300-304)`, as `NSIndexSet`'s description lists them.
    public var description: String {
        let parts = ranges.map { range in
            range.length == 1 ? String(range.location) : "\(range.location)-\(range.location + range.length - 1)"
        }
        return "(" + parts.joined(separator: ", ") + ")"
    }
}

/// Date components (`NSDateComponents`): the units that are set, and the calendar and time zone if archived.
public struct FoundationDateComponents: Hashable, Sendable, CustomStringConvertible {
    /// A calendar unit, in the order `NSCalendar` lists them.
    public enum Unit: String, Hashable, Sendable, CaseIterable {
        /// The era.
        case era
        /// The year.
        case year
        /// The year of a week-based date.
        case yearForWeekOfYear
        /// The quarter.
        case quarter
        /// The month.
        case month
        /// The week of the year.
        case weekOfYear
        /// The week of the month.
        case weekOfMonth
        /// The weekday.
        case weekday
        /// The weekday ordinal.
        case weekdayOrdinal
        /// The day of the month.
        case day
        /// The hour.
        case hour
        /// The minute.
        case minute
        /// The second.
        case second
        /// The nanosecond.
        case nanosecond
    }

    /// The units that are set and their values (`NSDateComponentUndefined` ones left out).
    public var values: [Unit: Int64]
    /// Whether the month is a leap month, when archived.
    public var isLeapMonth: Bool?
    /// The calendar's identifier (`gregorian`), when one was archived and read.
    public var calendarIdentifier: String?
    /// The time zone, when one was archived.
    public var timeZone: FoundationTimeZone?

    /// Makes date components.
    public init(values: [Unit: Int64], isLeapMonth: Bool? = nil, calendarIdentifier: String? = nil, timeZone: FoundationTimeZone? = nil) {
        self.values = values
        self.isLeapMonth = isLeapMonth
        self.calendarIdentifier = calendarIdentifier
        self.timeZone = timeZone
    }

    /// `year 2024, month 2, day 29, hour 13`, the units in calendar order, then the calendar and time zone.
    public var description: String {
        var parts = Unit.allCases.compactMap { unit in values[unit].map { "\(unit.rawValue) \($0)" } }
        if isLeapMonth == true { parts.append("leap month") }
        if let calendarIdentifier { parts.append("calendar \(calendarIdentifier)") }
        if let timeZone { parts.append("time zone \(timeZone.name)") }
        return parts.joined(separator: ", ")
    }
}

/// A time zone (`NSTimeZone`): its name and, when archived, its TZif data.
public struct FoundationTimeZone: Hashable, Sendable, CustomStringConvertible {
    /// The name (`Europe/Paris`).
    public var name: String
    /// The zone's rules as a TZif file (`NS.data`), when archived.
    public var data: [UInt8]?

    /// Makes a time zone.
    public init(name: String, data: [UInt8]? = nil) {
        self.name = name
        self.data = data
    }

    /// The name.
    public var description: String { name }
}

/// A locale (`NSLocale`): its identifier.
public struct FoundationLocale: Hashable, Sendable, CustomStringConvertible {
    /// The identifier (`fr_CA`).
    public var identifier: String

    /// Makes a locale.
    public init(identifier: String) {
        self.identifier = identifier
    }

    /// The identifier.
    public var description: String { identifier }
}

/// An error (`NSError`): its domain, code and user info, the user info's
/// keys and values `Value`s of the format it was read from.
public struct FoundationError<Value: Hashable & Sendable>: Hashable, Sendable {
    /// The domain (`NSCocoaErrorDomain`).
    public var domain: String
    /// The code.
    public var code: Int64
    /// The user info's entries, in stored order.
    public var userInfo: [FoundationEntry<Value>]

    /// Makes an error.
    public init(domain: String, code: Int64, userInfo: [FoundationEntry<Value>]) {
        self.domain = domain
        self.code = code
        self.userInfo = userInfo
    }

    /// `Error Domain=NSCocoaErrorDomain Code=4`, as `NSError`'s description begins.
    public var summary: String { "Error Domain=\(domain) Code=\(code)" }
}
