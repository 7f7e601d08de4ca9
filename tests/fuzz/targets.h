/* targets.h: the list of fuzz targets, one TARGET(NAME) per tests/fuzz/fuzz-NAME.c. */
TARGET(time)
TARGET(refs)
TARGET(questionnaire)
TARGET(csv)
TARGET(minisign)
TARGET(bundle)
TARGET(provider)
TARGET(sse)
