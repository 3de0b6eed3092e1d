#include "item.h"

ITEM(cherry, 300);
ITEM(damson, 4000);
