/* A shared object without sn_plugin_entry. */
int sn_not_the_entry(void);
int sn_not_the_entry(void) { return 42; }
