/* Table-driven ethtool netlink objects: GET with a reply callback, checked SET, shared show. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include "nl/devobj.h"
#include "util/ethtune.h"
#include "out/json_print.h"

static const struct et_object *const objects[] = { &et_coalesce, &et_rings, &et_channels };

const struct et_object *obj_by_name(const char *name)
{
	size_t i;

	/* "ring" and "rings" both name the rings object, as ethtool -g/-G does. */
	if (!strcmp(name, "ring"))
		name = "rings";
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (!strcmp(objects[i]->name, name))
			return objects[i];
	return NULL;
}

const struct et_param *obj_param(const struct et_object *obj, const char *key)
{
	unsigned int i;

	for (i = 0; i < obj->n_params; i++)
		if (!strcmp(obj->params[i].key, key))
			return &obj->params[i];
	return NULL;
}

struct parse_ctx {
	const struct et_object *obj;
	struct et_vals *v;
};

static const struct et_param *param_by_attr(const struct et_object *obj, uint16_t attr,
					    bool *is_max)
{
	unsigned int i;

	for (i = 0; i < obj->n_params; i++) {
		if (obj->params[i].attr == attr) {
			*is_max = false;
			return &obj->params[i];
		}
		if (obj->params[i].max_attr && obj->params[i].max_attr == attr) {
			*is_max = true;
			return &obj->params[i];
		}
	}
	return NULL;
}

static int obj_attr_cb(const struct nlattr *attr, void *data)
{
	struct parse_ctx *c = data;
	uint16_t type = mnl_attr_get_type(attr);
	const struct et_param *p;
	bool is_max;

	/* Attributes this build does not know (newer kernels) are skipped, not errors. */
	p = param_by_attr(c->obj, type, &is_max);
	if (!p)
		return MNL_CB_OK;
	if (is_max || p->type == ET_U32) {
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_OK;
		vals_set(c->v, type, mnl_attr_get_u32(attr));
	} else {
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			return MNL_CB_OK;
		vals_set(c->v, type, mnl_attr_get_u8(attr));
	}
	return MNL_CB_OK;
}

int obj_parse_reply(const struct et_object *obj, const struct nlmsghdr *nlh, struct et_vals *v)
{
	struct parse_ctx c = { .obj = obj, .v = v };

	if (nlh->nlmsg_len < mnl_nlmsg_size(GENL_HDRLEN))
		return -EBADMSG;
	return mnl_attr_parse(nlh, GENL_HDRLEN, obj_attr_cb, &c) < 0 ? -EBADMSG : 0;
}

struct get_ctx {
	const struct et_object *obj;
	struct et_vals *v;
};

static int obj_get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct get_ctx *g = data;

	return g->obj->reply_cb(nlh, g->v) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

struct nlmsghdr *ethnl_request(struct nl_sock *ns, uint8_t cmd, uint16_t hdr_attr, const char *dev,
			       uint32_t flags)
{
	struct nlmsghdr *nlh = nl_msg_start(ns, cmd, 0);
	struct nlattr *nest = mnl_attr_nest_start(nlh, hdr_attr);

	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, dev);
	if (flags)
		mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

int obj_get(struct nl_sock *ns, const struct et_object *obj, const char *dev, struct et_vals *v)
{
	struct get_ctx g = { .obj = obj, .v = v };
	struct nlmsghdr *nlh;

	memset(v, 0, sizeof(*v));
	nlh = ethnl_request(ns, obj->get_cmd, obj->hdr_attr, dev, 0);
	return nl_talk(ns, nlh, obj_get_cb, &g);
}

void obj_format_val(const struct et_param *p, uint64_t v, char *buf, size_t len)
{
	if (p->type == ET_BOOL)
		snprintf(buf, len, "%s", v ? "on" : "off");
	else if (p->type == ET_ENUM && p->enum_names) {
		unsigned int i;

		for (i = 0; p->enum_names[i]; i++)
			if (i == v) {
				snprintf(buf, len, "%s", p->enum_names[i]);
				return;
			}
		snprintf(buf, len, "%llu", (unsigned long long)v);
	} else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

int obj_parse_val(const struct et_param *p, const char *s, uint64_t *out)
{
	uint32_t u;
	bool b;
	int ret;

	switch (p->type) {
	case ET_BOOL:
		ret = parse_on_off(s, &b);
		if (!ret)
			*out = b;
		return ret;
	case ET_ENUM: {
		unsigned int i;

		for (i = 0; p->enum_names && p->enum_names[i]; i++)
			if (*p->enum_names[i] && !strcmp(p->enum_names[i], s)) {
				*out = i;
				return 0;
			}
		return -EINVAL;
	}
	case ET_U64:
		return parse_u64(s, out);
	case ET_U8:
		ret = parse_u32(s, &u);
		if (ret)
			return ret;
		if (u > 255)
			return -ERANGE;
		*out = u;
		return 0;
	default:
		ret = parse_u32(s, &u);
		if (!ret)
			*out = u;
		return ret;
	}
}

/* "tx-usecs, tx-frames, ..." of the settable parameters this device reports. */
static void supported_list(const struct et_object *obj, const struct et_vals *cur, char *buf,
			   size_t len)
{
	unsigned int i;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < obj->n_params; i++) {
		const struct et_param *p = &obj->params[i];

		if (p->ro || !vals_has(cur, p->attr))
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s", off ? ", " : "",
				p->key);
	}
	if (!off)
		snprintf(buf, len, "none");
}

int obj_parse_changes(const struct et_object *obj, const struct et_vals *cur, int argc, char **argv,
		      struct et_change *ch, unsigned int *n, char *err, size_t errlen)
{
	char list[512];
	int i;

	*n = 0;
	if (argc == 0 || argc % 2) {
		snprintf(err, errlen, "%s needs KEY VALUE pairs", obj->name);
		return -EINVAL;
	}
	for (i = 0; i < argc; i += 2) {
		const struct et_param *p = obj_param(obj, argv[i]);
		uint64_t val;
		unsigned int j;
		int ret;

		if (!p || p->ro) {
			snprintf(err, errlen, "unknown %s parameter '%s'", obj->name, argv[i]);
			return -EINVAL;
		}
		if (!vals_has(cur, p->attr)) {
			supported_list(obj, cur, list, sizeof(list));
			snprintf(err, errlen, "device does not support %s %s (supported: %s)",
				 obj->name, p->key, list);
			return -EOPNOTSUPP;
		}
		ret = obj_parse_val(p, argv[i + 1], &val);
		if (ret) {
			snprintf(err, errlen, "invalid value '%s' for %s%s", argv[i + 1], p->key,
				 p->type == ET_BOOL   ? " (expected on or off)"
				 : p->type == ET_ENUM ? ""
						      : " (expected a number up to 4294967295)");
			return ret;
		}
		if (val < p->min) {
			snprintf(err, errlen, "%s %llu is below the minimum %llu", p->key,
				 (unsigned long long)val, (unsigned long long)p->min);
			return -ERANGE;
		}
		if (p->max_attr && vals_has(cur, p->max_attr) && val > cur->v[p->max_attr]) {
			snprintf(err, errlen, "%s %llu is above the device maximum %llu", p->key,
				 (unsigned long long)val, (unsigned long long)cur->v[p->max_attr]);
			return -ERANGE;
		}
		for (j = 0; j < *n; j++)
			if (ch[j].p == p) {
				snprintf(err, errlen, "%s given twice", p->key);
				return -EINVAL;
			}
		ch[*n].p = p;
		ch[*n].val = val;
		(*n)++;
	}
	return 0;
}

int obj_set(struct nl_sock *ns, const struct et_object *obj, const char *dev,
	    const struct et_change *ch, unsigned int n)
{
	struct nlmsghdr *nlh = ethnl_request(ns, obj->set_cmd, obj->hdr_attr, dev, 0);
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ch[i].p->type == ET_U32)
			mnl_attr_put_u32(nlh, ch[i].p->attr, (uint32_t)ch[i].val);
		else
			mnl_attr_put_u8(nlh, ch[i].p->attr, (uint8_t)ch[i].val);
	}
	return nl_talk(ns, nlh, NULL, NULL);
}

static void show_param(const struct et_param *p, const struct et_vals *v, bool max)
{
	const char *key = max ? p->max_key : p->key;
	unsigned int attr = max ? p->max_attr : p->attr;
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "%-22s %%s\n", key);
	if (!vals_has(v, attr)) {
		print_na(key, fmt);
		return;
	}
	if (!max && p->type == ET_BOOL) {
		print_on_off(PRINT_ANY, key, fmt, v->v[attr]);
	} else if (!max && p->type == ET_ENUM) {
		char buf[32];

		obj_format_val(p, v->v[attr], buf, sizeof(buf));
		print_string(PRINT_ANY, key, fmt, buf);
	} else {
		snprintf(fmt, sizeof(fmt), "%-22s %%llu\n", key);
		print_uint(PRINT_ANY, key, fmt, v->v[attr]);
	}
}

void obj_show(const struct et_object *obj, const struct et_vals *v)
{
	unsigned int i;

	open_json_object(obj->name);
	print_text("%s:\n", obj->title);
	for (i = 0; i < obj->n_params; i++) {
		if (obj->params[i].max_attr)
			show_param(&obj->params[i], v, true);
	}
	for (i = 0; i < obj->n_params; i++)
		show_param(&obj->params[i], v, false);
	if (obj->show_extra)
		obj->show_extra(v);
	close_json_object();
	print_nl();
}
