import Foundation
import PropertyList
import TestSupport
import Testing

/// One file of `../shared/interop/malformed/` and what MANIFEST.md and the
/// folders' INDEX.tsv say must happen to it.
struct MalformedFile: Sendable, CustomTestStringConvertible {
    enum Expectation: Sendable {
        /// REJECT: a `PropertyListError` saying where. The format is the one
        /// the upstream test meant the file for.
        case reject(PropertyListFormat)
        /// Must not crash, hang or leak: accepting and rejecting are both fine
        /// (fuzzer reproducers, inputs with no stated expectation).
        case mustNotCrash(PropertyListFormat)
        /// Not an input: the collector's INDEX.tsv describing the folder.
        case notAnInput
    }

    /// The path under `../shared/interop`.
    var path: String
    var expectation: Expectation

    init(_ path: String, _ expectation: Expectation) {
        self.path = path
        self.expectation = expectation
    }

    var testDescription: String { path }
}

/// Every file of `../shared/interop/malformed/` is rejected with an error
/// that says where, or at least read without crashing, in under a second.
@Suite(.interopCorpus)
struct MalformedCorpusTests {
    static let files: [MalformedFile] = cpython + ddPlist + goPlist + libplist + rustPlist + swiftFoundation
    static var inputs: [MalformedFile] {
        files.filter { if case .notAnInput = $0.expectation { false } else { true } }
    }

    /// CPython plistlib: INVALID_BINARY_PLISTS "must raise InvalidFileException"; an XML entity declaration.
    static let cpython: [MalformedFile] = [
        MalformedFile("malformed/cpython-plistlib/INDEX.tsv", .notAnInput),
        MalformedFile("malformed/cpython-plistlib/XML_PLIST_WITH_ENTITY.plist", .reject(.xml)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_00_too_short_data.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_01_too_large_offset_table_offset_and_offset_size_1.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_02_too_large_offset_table_offset_and_nonstandard_offset_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_03_integer_overflow_in_offset_table_offset.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_04_too_large_top_object.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_05_integer_overflow_in_top_object.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_06_too_large_num_objects_and_offset_size_1.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_07_too_large_num_objects_and_nonstandard_offset_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_08_extremally_large_num_objects_32_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_09_extremally_large_num_objects_64_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_10_integer_overflow_in_num_objects.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_11_offset_size_0.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_12_ref_size_0.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_13_too_large_offset.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_14_integer_overflow_in_offset.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_15_too_large_array_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_16_extremally_large_array_size_32_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_17_extremally_large_array_size_64_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_18_integer_overflow_in_array_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_19_too_large_reference_index.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_20_integer_overflow_in_reference_index.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_21_too_large_bytes_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_22_extremally_large_bytes_size_32_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_23_extremally_large_bytes_size_64_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_24_integer_overflow_in_bytes_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_25_too_large_ASCII_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_26_extremally_large_ASCII_size_32_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_27_extremally_large_ASCII_size_64_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_28_integer_overflow_in_ASCII_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_29_invalid_ASCII.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_30_too_large_UTF_16_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_31_extremally_large_UTF_16_size_32_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_32_extremally_large_UTF_16_size_64_bit.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_33_integer_overflow_in_UTF_16_size.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_34_invalid_UTF_16.bplist", .reject(.binary)),
        // MANIFEST: "35 non-hashable key ... may be accepted by CF". The key is an
        // (empty) array; a PropertyListValue dictionary has string keys only, so
        // there is nothing to accept it as (go-plist 21 rejects non-string keys too).
        MalformedFile("malformed/cpython-plistlib/invalid_binary_35_non_hashable_key.bplist", .reject(.binary)),
        // MANIFEST: "36-37 datetime overflow may be accepted by CF": dates of 2^38
        // and 2^47 seconds overflow Python's datetime, not a Date or CFDate.
        MalformedFile("malformed/cpython-plistlib/invalid_binary_36_too_large_datetime_datetime_overflow.bplist", .mustNotCrash(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_37_too_large_datetime_timedelta_overflow.bplist", .mustNotCrash(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_38_invalid_datetime_Infinity.bplist", .reject(.binary)),
        MalformedFile("malformed/cpython-plistlib/invalid_binary_39_invalid_datetime_NaN.bplist", .reject(.binary)),
    ]

    /// dd-plist: IssueTest "must throw PropertyListFormatException/ParseException".
    static let ddPlist: [MalformedFile] = [
        MalformedFile("malformed/dd-plist/github-issue42.plist", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue72.plist", .reject(.binary)),
        // 73-1, 73-4, 73-5 and 76 are ASCII (OpenStep) plists to dd-plist.
        MalformedFile("malformed/dd-plist/github-issue73-1.plist", .reject(.openStep)),
        MalformedFile("malformed/dd-plist/github-issue73-2.plist", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue73-3.plist", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue73-4.plist", .reject(.openStep)),
        MalformedFile("malformed/dd-plist/github-issue73-5.plist", .reject(.openStep)),
        MalformedFile("malformed/dd-plist/github-issue73-6.plist", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue74/crash-285445a01ae3beca818dfeb6321f4a158eee06bf", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue74/crash-46eba622b71650b28219a056a63923980631fcd3", .reject(.xml)),
        MalformedFile("malformed/dd-plist/github-issue74/crash-879b2aa019cdded912f0374d67c4ab1efba34129", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue75/crash-1f3b69c098890cb571ff42ef9d490447a2311a9f", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue75/crash-6f9bf5d2f691cf8cb5242f9fead55361ef613fd6", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue75/crash-97e1ffe0eac3ef52bc0dbf1644096fcd7d51b873", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue75/crash-9f563bddda68e2665c8d6423ba92207cb2f83d12", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue75/crash-abaa25b8ea29bc8642d3dadb4771f534831c962f", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue76-xml.plist", .reject(.xml)),
        MalformedFile("malformed/dd-plist/github-issue76.plist", .reject(.openStep)),
        MalformedFile("malformed/dd-plist/github-issue78.plist", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue82/crash-1cb49aef0fce39c76b52d2e7d75d9cf791a094ba", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue82/crash-2e349bca77ace23ebc07aa2281c284d490ca72d4", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue82/crash-8b65d27a9ea1904c4cb9c2608ba3287a36c09d10", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue82/crash-a449e690c550065e1257924d60ada7a1cb3dd804", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue82/crash-a8f306110273c5f1442ea1ca75d4976e20e15c63", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue82/crash-d72ddae9db9312a472b6dedd1d10761818ad4d80", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue82/crash-e2b11001ae2a4e0f1be9e62bce718aac31d07bd0", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue82/crash-f810b5e42ff9a48465750e811bad6db5b79744a6", .reject(.binary)),
        MalformedFile("malformed/dd-plist/github-issue82/crash-fc1c89a6da5a62aefc3473f1d0846bcecf0a9c57", .reject(.binary)),
    ]

    /// go-plist: every InvalidBplists/InvalidXMLPlists entry must error; xml_unusual_cases: "NO stated expectation".
    static let goPlist: [MalformedFile] = [
        MalformedFile("malformed/go-plist/InvalidBplists/00_Too_short.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/01_Bad_magic.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/02_Bad_version.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/03_Bad_version_II.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/04_Offset_table_inside_trailer.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/05_Offset_table_inside_header.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/06_Offset_table_off_end_of_file.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/07_Garbage_between_offset_table_and_trailer.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/08_Top_Object_out_of_range.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/09_Object_out_of_range.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/10_Object_references_too_small_1_byte_but_257_objects.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/11_Offset_references_too_small_1_byte_but_257_bytes_worth_of_objects.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/12_Too_many_objects.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/13_String_way_too_long.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/14_UTF_16_String_way_too_long.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/15_Data_way_too_long.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/16_Array_way_too_long.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/17_Dictionary_way_too_long.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/18_Array_self_referential.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/19_Dictionary_self_referential_key.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/20_Dictionary_self_referential_value.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/21_Dictionary_non_string_key.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/22_Array_contains_invalid_reference.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/23_Dictionary_contains_invalid_reference.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/24_Invalid_float_7_byte.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/25_Invalid_integer_8_5.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/26_Invalid_atom.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/27_array_refers_to_self_through_a_second_level.bplist", .reject(.binary)),
        MalformedFile("malformed/go-plist/InvalidBplists/INDEX.tsv", .notAnInput),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/INDEX.tsv", .notAnInput),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_00.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_01.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_02.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_03.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_04.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_05.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_06.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_07.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_08.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_09.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_10.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_11.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_12.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_13.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_14.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_15.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_16.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_17.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_18.plist", .reject(.xml)),
        // "<plist/>": MANIFEST warns "CF behaviour may differ", but CF's
        // parsePListTag fails with "Encountered empty plist tag", and
        // swift-foundation's test_xmlErrors rejects "Empty plist" too.
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_19.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_20.plist", .reject(.xml)),
        // "bplist00" given to the XML parser; as a binary plist it is too short too.
        MalformedFile("malformed/go-plist/InvalidXMLPlists/invalid_xml_21.plist", .reject(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s01.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s02.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s03.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s04.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s05.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s06.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s07.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s08.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s09.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s10.plist", .mustNotCrash(.xml)),
        MalformedFile("malformed/go-plist/xml_unusual_cases/s11.plist", .mustNotCrash(.xml)),
    ]

    /// libplist: test/*.test inputs must be rejected; fuzz/*-crashes, *-leaks "must not crash (reject or accept)".
    static let libplist: [MalformedFile] = [
        MalformedFile("malformed/libplist/amp.plist", .reject(.xml)),
        MalformedFile("malformed/libplist/bplist-crashes/clusterfuzz-testcase-4766291097288704", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/clusterfuzz-testcase-4930725262393344", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/clusterfuzz-testcase-5421965105954816", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/clusterfuzz-testcase-5556177727389696", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/clusterfuzz-testcase-6557963011489792", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/clusterfuzz-testcase-6605859144597504", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-0ce4dd483b645bc05ec45a97d285dcf1933ee840", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-0d59cdcb5c3416c2790612b78a631ce9f5622800", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-17d635ab460fef74df1ac7561f1253533a6359c5", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-33a67313fa7864cd627ef92d12017a127d342f28", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-39f1347115f8fe9ac25cdc9332e3fc5cd32c7f7b", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-4bd78175fe01d07c5ee90104fbc68d95dd092210", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-4c5404453bb7425aef9b953a5f6f3f0afcc48392", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-52775e25f6af20af351cd616834e602fc988a032", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-6d1399685b745d3d49fadc91072fabcdde8d16fa", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-94b3725900d63c6258448fd757559c81002de9c9", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-a47195acbabc3f5b2cda9c6ebda42f2afc1cc5af", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-ce852bae6aeeffc4698a93660236f1b995ce966e", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-daddb6e82e3d1ed76e20e4131462f5247a6fb131", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-f21be4ebce7f9c337bf96b93cec7e252f5c75a21", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-crashes/crash-f779dafccc0164684d1a264976e56037188b40e2", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-leaks/leak-96fb453b3ba18d31e164831795a708183b5a0dac", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-leaks/leak-acb3c00a83d7635638a476a4e70fc1f1caa1a5b1", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/bplist-leaks/leak-fe2cd4b1f67e0c9b21e6225a4fb4ca19eab80074", .mustNotCrash(.binary)),
        MalformedFile("malformed/libplist/invalid_tag.plist", .reject(.xml)),
        MalformedFile("malformed/libplist/malformed_dict.bplist", .reject(.binary)),
        MalformedFile("malformed/libplist/recursion.bplist", .reject(.binary)),
        MalformedFile("malformed/libplist/xplist-crashes/clusterfuzz-testcase-4516959125241856", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/clusterfuzz-testcase-4663876528373760", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/clusterfuzz-testcase-5799076113154048", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/clusterfuzz-testcase-5922404220010496", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/clusterfuzz-testcase-6015098361479168", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/clusterfuzz-testcase-6043836860071936", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/clusterfuzz-testcase-6047509906456576", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/clusterfuzz-testcase-6482601374121984", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-09788d7acb46b4b177422f9c4ee54556a3ad1f17", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-155c60d5c4b2778110fb4a633caa7d64eb9b99c1", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-348c909a0b3532977185f551eb5d2ed04e694883", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-7bc172e27a2b1d4fcaf031f59d1f08fb83081e4a", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-80c28b0e2a446665e68927dd4441c10c9a68e64e", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-8acf177da60ecf13c36d0da1b8e25de891980ea6", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-94276cf69a50e78dd6cdf079c208cb80f357cd33", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-9ddb891a0ec42401eb4629e6b99e01aef7909eb9", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-a8b44e1f5be4f75f00a937016ec5405bce77a0f9", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-da39a3ee5e6b4b0d3255bfef95601890afd80709", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-crashes/crash-f03c680ee1c4d84c28e731752df77a61e213a24d", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-leaks/clusterfuzz-testcase-4634751103139840", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-leaks/clusterfuzz-testcase-6056412121661440", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-leaks/leak-47b0a9f21d3affab6cfc898e5140bb53265ada07", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-leaks/leak-4c81aae70b20d9b9408b78d40999a54205bdcfb7", .mustNotCrash(.xml)),
        MalformedFile("malformed/libplist/xplist-leaks/leak-53bc466851eda790bd891733da5db0a7482886bf", .mustNotCrash(.xml)),
    ]

    /// rust-plist: tests/data and tests/fuzzer.rs inputs.
    static let rustPlist: [MalformedFile] = [
        // "REJECT in rust-plist (array cycles); CPython accepts and builds a
        // cyclic list": a PropertyListValue cannot be cyclic.
        MalformedFile("malformed/rust-plist/binary_circular_array.plist", .reject(.binary)),
        MalformedFile("malformed/rust-plist/binary_zero_offset_size.plist", .reject(.binary)),
        // The MANIFEST column is blank for the fuzzer_* files; rust-plist's
        // tests/fuzzer.rs asserts test_fuzzer_data_err (an error) for
        // binary_circular_reference, empty_offset_table and both
        // too_large_allocation inputs. No stated outcome for the other three.
        MalformedFile("malformed/rust-plist/fuzzer_binary_circular_reference.bplist", .reject(.binary)),
        MalformedFile("malformed/rust-plist/fuzzer_binary_nan_date.bplist", .mustNotCrash(.binary)),
        MalformedFile("malformed/rust-plist/fuzzer_empty_offset_table.bplist", .reject(.binary)),
        MalformedFile("malformed/rust-plist/fuzzer_overflow_instant_add.bplist", .mustNotCrash(.binary)),
        MalformedFile("malformed/rust-plist/fuzzer_overflow_instant_sub.bplist", .mustNotCrash(.binary)),
        MalformedFile("malformed/rust-plist/fuzzer_too_large_allocation.bplist", .reject(.binary)),
        MalformedFile("malformed/rust-plist/fuzzer_too_large_allocation_2.bplist", .reject(.binary)),
        MalformedFile("malformed/rust-plist/xml_entity_error.plist", .reject(.xml)),
        MalformedFile("malformed/rust-plist/xml_error.plist", .reject(.xml)),
    ]

    /// swift-foundation: inputs PropertyListDecoder must reject.
    static let swiftFoundation: [MalformedFile] = [
        MalformedFile("malformed/swift-foundation/Test_5616259.bad", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/bad_plist.bad", .reject(.xml)),
        // The section: "Inputs Apple's own swift-foundation PropertyListDecoder
        // must reject (XCTAssertThrowsError)"; the rows name the test functions.
        MalformedFile("malformed/swift-foundation/test_badReferenceIndex.bplist", .reject(.binary)),
        MalformedFile("malformed/swift-foundation/test_badTopObjectIndex.bplist", .reject(.binary)),
        MalformedFile("malformed/swift-foundation/test_outOfBoundsObjectOffset.bplist", .reject(.binary)),
        MalformedFile("malformed/swift-foundation/test_outOfBoundsOffsetTableStart.bplist", .reject(.binary)),
        MalformedFile("malformed/swift-foundation/test_tooLargeIndex.bplist", .reject(.binary)),
        MalformedFile("malformed/swift-foundation/test_tooLargeObjectCount.bplist", .reject(.binary)),
        MalformedFile("malformed/swift-foundation/test_tooLargeOffset.bplist", .reject(.binary)),
        // test_xmlErrors edits of Generic_XML_Properties.plist. "Empty plist"
        // may be a type error upstream (a Codable struct), but CF rejects an
        // empty <plist> too.
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Bad_open_tag.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Deleted_leading.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Early_EOF.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Empty_date.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Empty_int_tag.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Empty_plist.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Empty_real.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Enormous_int.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Extra_plist_object.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Fake_inline_DTD.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Hex_digit_in_non_hex_int.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/INDEX.tsv", .notAnInput),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/MalformedDTD.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Malformed_real_tag.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Mess_with_DOCTYPE.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Mismathed_close_tag.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Missing_value_for_key.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Non_key_inside_dict.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Strange_int_tag.plist", .reject(.xml)),
        MalformedFile("malformed/swift-foundation/test_xmlErrors/Unterminated_comment.plist", .reject(.xml)),
    ]

    @Test func tableListsEveryFileOfTheMalformedCorpus() {
        #expect(Self.files.map(\.path).sorted() == InteropCorpus.files(under: "malformed"))
    }

    /// Each file is read twice through `PropertyListReader`: with format
    /// detection, as a caller with an unknown file would, and in the format
    /// the upstream test meant it for. A REJECT file must be rejected both ways.
    @Test(arguments: inputs)
    func isRejectedOrSurvived(_ file: MalformedFile) throws {
        let bytes = try InteropCorpus.bytes(file.path)
        for format in [nil, file.format] as [PropertyListFormat?] {
            let how = format.map { "read as \($0)" } ?? "read with format detection"
            let outcome = Result { () throws(PropertyListError) in try PropertyListReader().read(bytes, format: format) }

            guard case .reject = file.expectation else { continue }  // returning or throwing are both fine
            switch outcome {
            case .success(let decoded):
                Issue.record("\(how): accepted as \(decoded.format): \(PropertyListComparison.summary(decoded.value))")
            case .failure(let error):
                #expect(error.location != .none, "\(how): no location in \(error)")
                #expect(!error.description.isEmpty, "\(how): empty description")
            }
        }
    }
}

extension MalformedFile {
    /// The format the upstream test meant the file for; only called for inputs.
    var format: PropertyListFormat {
        switch expectation {
        case .reject(let format), .mustNotCrash(let format): format
        case .notAnInput: preconditionFailure("\(path) is not an input")
        }
    }
}
