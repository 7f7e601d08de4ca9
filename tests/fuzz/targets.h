/* targets.h: the list of fuzz targets, one TARGET(NAME) per tests/fuzz/fuzz-NAME.c. */
TARGET(time)
TARGET(refs)
