#include <microhttpd.h>

// MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call: these two fixed-argument
// wrappers are all the service needs. Options go in one MHD_OPTION_ARRAY (ended by MHD_OPTION_END).
static inline struct MHD_Daemon *swiftseg_mhd_start(unsigned int flags, uint16_t port,
                                                    MHD_AccessHandlerCallback handler, void *handler_context,
                                                    struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_context,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

// The port the daemon listens on (the kernel's choice when started on port 0); 0 if unknown.
static inline uint16_t swiftseg_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
