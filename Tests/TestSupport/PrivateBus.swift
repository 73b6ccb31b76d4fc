/// A D-Bus session bus of a test's own that can start nothing by itself: unlike the
/// session bus `dbus-run-session` makes from the system's configuration, it activates no
/// service (gnome-keyring through `org.freedesktop.secrets.service`), so a test decides
/// which Secret Service answers on it, or that none does.
public enum PrivateBus {
    /// The bus's configuration, listening in `folder`: for
    /// `dbus-run-session --config-file FILE -- …`.
    public static func configuration(listeningIn folder: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:tmpdir=\(folder)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }
}
