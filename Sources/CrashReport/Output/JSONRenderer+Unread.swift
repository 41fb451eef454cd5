extension JSONRenderer {
    /// Appends the JSON object of a report that could not be read (an element of the
    /// `reports` array): its path, `error` saying why, and no threads or images, so that a
    /// crash server sees every report it sent.
    public static func renderUnread(path: String, reason: String, into out: inout [UInt8]) {
        out.append(literal: "{\"path\":")
        appendString(path, to: &out)
        out.append(literal: ",\"error\":")
        appendString(reason, to: &out)
        out.append(literal: ",\"threads\":[],\"images\":[]}")
    }
}
