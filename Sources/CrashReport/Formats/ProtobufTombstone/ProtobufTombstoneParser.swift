internal import SwiftProtobuf

/// Reads Android's protobuf tombstones: `/data/tombstones/tombstone_NN.pb` (Android 12 and
/// later, beside the text `tombstone_NN`), as `adb bugreport` and
/// `ApplicationExitInfo.getTraceInputStream()` give them.
///
/// The message (`Protos/tombstone.proto`, AOSP's fields and numbers) is decoded by
/// swift-protobuf's generated code (`tombstone.pb.swift`) and written out as text in the layout
/// of AOSP's `pbtombstone` tool, the text tombstone's (`ProtobufTombstoneText`), which makes
/// the report's threads, frames and images as it writes their lines. The model is the text
/// parser's (`TombstoneParser`): each frame's `imageOffset` is its `rel_pc`, looked up as
/// printed (`returnAddress` false: libunwindstack has already moved return addresses onto
/// their calls); its image the mapped file named by `file_name` (a library loaded from inside
/// its APK, `base.apk!libfoo.so`, named `libfoo.so`), with the frame's `build_id` as its
/// identity. The result's source is `.protobufTombstone`: its text, JSON and frame-line output
/// are those of a text tombstone, the message is not written back.
public enum ProtobufTombstoneParser {
    /// The Tombstone fields read as a varint (wire type 0): arch, pid, tid, uid,
    /// process_uptime, page_size, has_been_16kb_mode, guest_arch.
    private static let varintFields: Set<UInt64> = [1, 5, 6, 7, 20, 22, 23, 24]
    /// The fields read as bytes (wire type 2): the strings, messages, maps and repeated fields.
    private static let lengthFields: Set<UInt64> = [2, 3, 4, 8, 9, 10, 14, 15, 16, 17, 18, 19, 21, 25]
    /// Field numbers AOSP keeps free (11 to 13) or has not used yet (26 and above) may come with
    /// any wire type; a field of the numbers above must come with its own.
    private static func fits(_ field: ProtobufFields.Field) -> Bool {
        if varintFields.contains(field.number) { return field.wireType == 0 }
        if lengthFields.contains(field.number) { return field.wireType == 2 }
        return true
    }

    /// Whether `bytes` (the input's first block when not `whole`) may be a protobuf tombstone:
    /// a protobuf message whose top-level fields, in the ascending order every protobuf
    /// library writes them, have the wire types of the Tombstone message, among them the build
    /// fingerprint (field 2) or the crashed thread's tid (6), and a thread (16) once the
    /// message is read whole. The last field may run past the end: a tombstone cut short is
    /// still one, which its decoding then says is cut short. Text never passes: its first
    /// bytes make tags of the wrong wire type, or fields out of order, within a few fields.
    public static func looksLikeProtobufTombstone(_ bytes: UnsafeBufferPointer<UInt8>, whole: Bool) -> Bool {
        guard !bytes.isEmpty else { return false }
        var last: UInt64 = 0
        var fitting = true, identity = false, thread = false, fields = 0
        let message = ProtobufFields.walk(bytes, whole: false) { field in
            guard fits(field), field.number >= last else {
                fitting = false
                return false
            }
            last = field.number
            fields += 1
            if field.number == 2 || field.number == 6 { identity = true }
            if field.number == 16 { thread = true }
            return true
        }
        return message && fitting && identity && fields >= 2 && (thread || !whole)
    }

    /// ``looksLikeProtobufTombstone(_:whole:)`` of a whole input.
    public static func looksLikeProtobufTombstone(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { looksLikeProtobufTombstone($0, whole: true) }
    }

    /// Parses the tombstone at `path`.
    ///
    /// - Throws: `ReportError.invalidProtobuf` when swift-protobuf cannot decode the message
    ///   (cut short, damaged), or when it holds no thread whose tid is the tombstone's.
    public static func parse(_ bytes: [UInt8], path: String) throws -> CrashReport {
        if let reason = bytes.withUnsafeBufferPointer(ProtobufFields.tooDense) {
            throw ReportError.invalidProtobuf(path, format: "Android protobuf tombstone", reason: reason)
        }
        let tombstone: AndroidTombstone_Tombstone
        do {
            tombstone = try AndroidTombstone_Tombstone(serializedBytes: bytes)
        } catch {
            throw ReportError.invalidProtobuf(path, format: "Android protobuf tombstone",
                                              reason: ProtobufDecoding.reason(error))
        }
        guard tombstone.threads[tombstone.tid] != nil else {
            throw ReportError.invalidProtobuf(path, format: "Android protobuf tombstone",
                                              reason: "no thread has the tombstone's tid (\(tombstone.tid)), "
                                                  + "so there is no crashed thread to print")
        }
        let translation = ProtobufTombstoneText.translate(tombstone)
        return CrashReport(path: path, bytes: translation.text, lines: LineRanges(translation.text),
                           header: translation.header, crashedThread: translation.threads.firstIndex(where: \.crashed),
                           threads: translation.threads, images: translation.images, source: .protobufTombstone)
    }
}

/// What to say of swift-protobuf's decoding errors.
enum ProtobufDecoding {
    /// Why a message could not be decoded, in words for a one-line message.
    static func reason(_ error: Error) -> String {
        switch error as? BinaryDecodingError {
        case .truncated?: return "the protobuf message is cut short"
        case .malformedProtobuf?: return "the bytes are not a valid protobuf message (damaged or cut short)"
        case .messageDepthLimit?: return "the protobuf message nests too deep"
        case .invalidUTF8?: return "the protobuf message holds a string that is not UTF-8"
        case .missingRequiredFields?: return "the protobuf message lacks required fields"
        default: return "the protobuf message cannot be decoded (\(error))"
        }
    }
}

extension String {
    /// Bytes of a protobuf `bytes` field that stands for a string, as UTF-8 (U+FFFD for bytes
    /// that are not).
    init(protobufText bytes: some Collection<UInt8>) {
        self = String(decoding: bytes, as: UTF8.self)
    }
}
