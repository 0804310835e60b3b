public import Positioning

extension OutputEncoder {
    /// Appends one anchor's health as a line-protocol line (the live service's `#anchors` reply):
    ///
    ///     anchor_health,site=S,anchor=A lines=120i,ranges=96i,rejected=1i,blocked=4i,innovation_rms=0.93,learned_bias=0.1234,silent_s=0.2 TS
    ///
    /// `innovation_rms` is left out before any range was tested, `silent_s` (seconds since the anchor's
    /// latest line) for an anchor never heard. Returns false, with nothing appended, for an id that
    /// cannot be written or a non-finite number.
    @discardableResult
    public static func appendAnchorHealth(_ r: AnchorReport, silentSeconds: Double?, time: Nanoseconds,
                                          to buffer: inout [UInt8]) -> Bool {
        let h = r.health
        guard isRepresentableTagValue(r.site), isRepresentableTagValue(r.anchor), r.learnedBias.isFinite,
              h.innovationRMS?.isFinite ?? true, silentSeconds?.isFinite ?? true else { return false }
        buffer.append("anchor_health")
        buffer.putTag("site", r.site)
        buffer.putTag("anchor", r.anchor)
        buffer.append(" lines=")
        buffer.appendInteger(Int64(h.lines))
        buffer.append("i,ranges=")
        buffer.appendInteger(Int64(h.ranges))
        buffer.append("i,rejected=")
        buffer.appendInteger(Int64(h.rejected))
        buffer.append("i,blocked=")
        buffer.appendInteger(Int64(h.blocked))
        buffer.append(UInt8(ascii: "i"))
        if let rms = h.innovationRMS {
            buffer.putFieldKey("innovation_rms")
            FixedDecimal.append(rms, significantDigits: covarianceDigits, to: &buffer)
        }
        buffer.putFieldKey("learned_bias")
        FixedDecimal.append(r.learnedBias, decimals: metreDecimals, to: &buffer)
        if let silentSeconds {
            buffer.putFieldKey("silent_s")
            FixedDecimal.append(silentSeconds, decimals: 3, to: &buffer)
        }
        buffer.appendTimestamp(time)
        return true
    }
}
